import TestSupport

/// The ids a fetch measurement asks for, the same for every system: random
/// existing shares by index, and a given share of ids that exist nowhere.
struct FetchPlan {
    private enum Pick {
        case existing(Int)
        case missing(Int)
    }

    private let picks: [Pick]
    private let missingNames: [UInt8]

    /// - Parameters:
    ///   - count: ids to fetch.
    ///   - existing: shares in the store, by index.
    ///   - missingFraction: the chance that an id exists nowhere.
    init(count: Int, existing: Int, missingFraction: Double, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var picks: [Pick] = []
        var missingNames: [UInt8] = []
        for _ in 0..<count {
            if Double.random(in: 0..<1, using: &random) < missingFraction {
                picks.append(.missing(missingNames.count / 16))
                var name = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
                name[6] = name[6] & 0x0f | 0x40
                name[8] = name[8] & 0x3f | 0x80
                missingNames += name
            } else {
                picks.append(.existing(Int.random(in: 0..<existing, using: &random)))
            }
        }
        self.picks = picks
        self.missingNames = missingNames
    }

    /// The ids to fetch from a store whose shares have `names` (16 bytes
    /// each, in index order).
    func names(from names: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(picks.count * 16)
        for pick in picks {
            switch pick {
            case .existing(let index): out += names[16 * index ..< 16 * index + 16]
            case .missing(let index): out += missingNames[16 * index ..< 16 * index + 16]
            }
        }
        return out
    }
}
