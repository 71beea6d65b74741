/// `cp -r` failed.
struct CopyFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { "cp -r failed: \(message)" }
}
