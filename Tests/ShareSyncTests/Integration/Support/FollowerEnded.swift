/// The following process ended while a test waited for it to bring a share.
struct FollowerEnded: Error, CustomStringConvertible {
    let log: String
    var description: String { "the follower ended early: \(log)" }
}
