import Foundation

/// What a power-cut run checked and found.
public struct PowerCutReport: Codable, Sendable {
    public var durability: String
    public var seed: UInt64
    /// Operations the writer acknowledged.
    public var acknowledged = 0
    /// Durable syncs the writer's journal holds, and syncs the shim dropped.
    public var syncs = 0
    public var droppedSyncs = 0
    /// Cut points, and the states chosen among them.
    public var points = 0
    public var states = 0
    /// States checked (`states` less those that repeated an earlier one).
    public var checked = 0
    public var intact = 0
    /// Consistent states missing only operations acknowledged since the
    /// last sync began (the last commit), and those missing more.
    public var lostLastCommit = 0
    public var lostMore = 0
    public var mostLost = 0
    public var corrupt = 0
    /// The outcomes that break the mode's promise (at most 20).
    public var broken: [PowerCutOutcome] = []
    public var brokenCount = 0
    public var store: String?
    public var passed = false

    public init(durability: String, seed: UInt64) {
        self.durability = durability
        self.seed = seed
    }

    /// Counts `outcome` against `promise`.
    mutating func add(_ outcome: PowerCutOutcome, promise: PowerCutPromise) {
        switch outcome.verdict {
        case .repeated: return
        case .intact: intact += 1
        case .lost:
            if outcome.lost <= outcome.unsynced { lostLastCommit += 1 } else { lostMore += 1 }
            mostLost = max(mostLost, outcome.lost)
        case .corrupt: corrupt += 1
        }
        checked += 1
        if !promise.keeps(outcome) {
            brokenCount += 1
            if broken.count < 20 { broken.append(outcome) }
        }
    }

    /// Passes when every state kept the promise, and the run checked
    /// something: at least one state after an acknowledged operation.
    mutating func judge(checkedAfterAnAcknowledgement: Bool) {
        passed = brokenCount == 0 && checked > 0 && acknowledged > 0 && checkedAfterAnAcknowledgement
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    public var text: String {
        var lines = [
            "power cut, durability \(durability), seed \(seed): \(acknowledged) operations acknowledged, \(syncs) syncs"
                + (droppedSyncs > 0 ? ", \(droppedSyncs) dropped on purpose" : ""),
            "\(points) cut points, \(states) states, \(checked) distinct states checked: \(intact) intact, "
                + "\(lostLastCommit) lost only operations acknowledged since the last sync began, \(lostMore) lost earlier ones, "
                + "\(corrupt) corrupt; "
                + "at most \(mostLost) acknowledged operations lost",
        ]
        for outcome in broken {
            lines.append("BROKEN PROMISE: state \(outcome.index) (\(outcome.state), after \(outcome.acknowledged) acknowledgements, "
                + "\(outcome.unsynced) since the last sync): "
                + "\(outcome.verdict.rawValue)\(outcome.verdict == .lost ? " \(outcome.lost)" : ""): \(outcome.detail ?? "")")
        }
        if brokenCount > broken.count { lines.append("… and \(brokenCount - broken.count) more") }
        if let store, !passed { lines.append("store and journal kept in \(store)") }
        lines.append(passed ? "PASSED" : "FAILED")
        return lines.joined(separator: "\n")
    }
}
