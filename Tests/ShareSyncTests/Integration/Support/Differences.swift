/// Where two large maps disagree, in a few lines, so a failed comparison
/// of thousands of entries says what differs instead of printing both.
struct Differences: CustomStringConvertible {
    let count: Int
    let examples: [String]

    init(_ left: [String: String], _ right: [String: String]) {
        let keys = Set(left.keys).union(right.keys).filter { left[$0] != right[$0] }.sorted()
        count = keys.count
        examples = keys.prefix(5).map { "\($0): \(left[$0] ?? "absent") | \(right[$0] ?? "absent")" }
    }

    var isEmpty: Bool { count == 0 }

    var description: String { "\(count) keys differ, such as:\n" + examples.joined(separator: "\n") }
}
