import TestSupport

/// Every file state a power cut could leave behind one writer's journal.
///
/// The model (docs/RELIABILITY.md "Power loss"): each 512-byte sector is
/// written to the disk whole or not at all, in any order, at any time after
/// the process wrote it (the kernel writes back dirty pages of a shared map
/// when it likes); a sync makes the sectors it covers durable with the
/// bytes they had at its entry, once it returns. So at a cut, each sector
/// holds its durable version or any later version written before the cut.
///
/// The cut points are the journal's snapshots: between two snapshots the
/// writer printed no line, so any state reachable between them is reachable
/// just before the second, with the same lines printed. A point is kept
/// only when something changed since the previous one: a sector, the
/// durable state, or the lines printed. The first durable sync is the
/// baseline (the file as the writer found it): points start after it.
public struct PowerCutSpace: Sendable {
    public let journal: PowerCutJournal
    public private(set) var points: [PowerCutPoint] = []
    /// Every line the writer printed, in order.
    public private(set) var lines: [String] = []
    /// The lines parsed (nil for one that is not a `CrashLine`), and how
    /// many acknowledgements come before each line.
    private var parsed: [CrashLine?] = []
    private var acknowledgementsBefore: [Int] = [0]
    /// Syncs the shim skipped on purpose.
    public private(set) var droppedSyncs = 0
    /// Durable syncs that returned.
    public private(set) var completedSyncs = 0
    /// Per version: its sector, where its bytes are in the journal, and the
    /// file's length when it was written.
    private var versionSector: [Int] = []
    private var versionAt: [Int] = []
    private var versionLength: [Int] = []
    private var versionRecord: [Int] = []

    /// Replays `journal`.
    ///
    /// - Throws: `CrashViolation` for a sync's return without its entry, or
    ///   two syncs at once (the writer syncs from one thread).
    public init(_ journal: PowerCutJournal) throws(CrashViolation) {
        self.journal = journal
        var current: [Int] = [], durable: [Int] = [], history: [[Int]] = []
        var currentLength = 0, durableLength = 0
        var open: (sync: PowerCutJournal.Sync, range: Range<Int>, entry: [Int], length: Int, lines: Int, record: Int)?
        var linesBeforeLastSync = 0, durableLengthRecord = 0
        var changedSinceLastPoint = false
        for (index, record) in journal.records.enumerated() {
            switch record {
            case .snapshot(let length, let changes):
                for change in changes {
                    if change.sector >= current.count {
                        let grow = change.sector + 1 - current.count
                        current += Array(repeating: -1, count: grow)
                        durable += Array(repeating: -1, count: grow)
                        history += Array(repeating: [], count: grow)
                    }
                    let version = versionSector.count
                    versionSector.append(change.sector)
                    versionAt.append(change.at)
                    versionLength.append(length)
                    versionRecord.append(index)
                    current[change.sector] = version
                    history[change.sector].append(version)
                }
                if !changes.isEmpty || length != currentLength { changedSinceLastPoint = true }
                currentLength = length
                // Before the baseline's sync there is nothing to cut: the parent synced the file.
                guard completedSyncs > 0, changedSinceLastPoint || points.last?.lines != lines.count else { continue }
                changedSinceLastPoint = false
                var pending: [(sector: Int, version: Int)] = []
                for sector in current.indices where current[sector] != durable[sector] {
                    for version in history[sector].reversed() {
                        if version <= durable[sector] { break }
                        pending.append((sector, version))
                    }
                }
                pending.sort { $0.version < $1.version }
                points.append(PowerCutPoint(record: index, lines: lines.count, linesBeforeLastSync: linesBeforeLastSync, durable: durable,
                                            durableLength: durableLength, durableLengthRecord: durableLengthRecord,
                                            currentLength: currentLength, pending: pending))
            case .syncBegin(let sync):
                guard open == nil else { throw CrashViolation("journal record \(index): a sync began while another ran") }
                let range = sync.sectors(sectorSize: journal.sectorSize, fileLength: currentLength)
                let entry = range.map { $0 < current.count ? current[$0] : -1 }
                open = (sync, range, entry, currentLength, lines.count, index)
            case .syncEnd(let error):
                guard let sync = open else { throw CrashViolation("journal record \(index): a sync returned that never began") }
                open = nil
                guard error == 0, sync.sync.isDurable else { continue }
                completedSyncs += 1
                linesBeforeLastSync = sync.lines
                for (offset, sector) in sync.range.enumerated() where sector < durable.count && sync.entry[offset] > durable[sector] {
                    durable[sector] = sync.entry[offset]
                    changedSinceLastPoint = true
                }
                if durableLength != sync.length { changedSinceLastPoint = true }
                durableLength = sync.length
                durableLengthRecord = sync.record
            case .dropped:
                droppedSyncs += 1
            case .line(let text):
                lines.append(text)
                let line = CrashLine(parsing: text.dropLast())
                parsed.append(line)
                acknowledgementsBefore.append(acknowledgementsBefore[acknowledgementsBefore.count - 1] + (line?.event == .ack ? 1 : 0))
            case .write, .resize:
                continue
            }
        }
    }

    /// The states to check: at every point, none and all of the unsynced
    /// writes; then prefixes (at most `prefixesPerPoint` per point, evenly
    /// spaced) and `subsetsPerPoint` random subsets, of which a seeded
    /// sample fills what `limit` leaves. In order of point.
    public func states(limit: Int, prefixesPerPoint: Int = 16, subsetsPerPoint: Int = 4, seed: UInt64) -> [PowerCutState] {
        var random = SeededGenerator(seed: seed)
        var base: [PowerCutState] = [], extra: [PowerCutState] = []
        for (index, point) in points.enumerated() {
            base.append(PowerCutState(point: index, kind: .none))
            let count = point.pending.count
            guard count > 0 else { continue }
            base.append(PowerCutState(point: index, kind: .all))
            let inner = count - 1
            let prefixes = inner <= prefixesPerPoint
                ? Array(1..<count)
                : Array(Set((1...prefixesPerPoint).map { 1 + ($0 * inner) / (prefixesPerPoint + 1) })).sorted()
            extra += prefixes.map { PowerCutState(point: index, kind: .prefix($0)) }
            extra += (0..<subsetsPerPoint).map { _ in PowerCutState(point: index, kind: .subset(random.next())) }
        }
        let chosen = base.count >= limit
            ? Array(base.shuffled(using: &random).prefix(limit))
            : base + extra.shuffled(using: &random).prefix(limit - base.count)
        return chosen.sorted { ($0.point, $0.kind.order) < ($1.point, $1.kind.order) }
    }

    /// The file's bytes in `state`.
    public func bytes(of state: PowerCutState) -> [UInt8] {
        let point = points[state.point]
        var chosen = point.durable
        var length = point.durableLength
        switch state.kind {
        case .none:
            break
        case .all:
            for (sector, version) in point.pending { chosen[sector] = version }
            length = point.currentLength
        case .prefix(let count):
            for (sector, version) in point.pending.prefix(count) { chosen[sector] = version }
            // The length when the last write of the prefix was made, unless a
            // sync made a later length durable.
            if count > 0, case let last = point.pending[min(count, point.pending.count) - 1].version,
               versionRecord[last] > point.durableLengthRecord {
                length = versionLength[last]
            }
        case .subset(let seed):
            var random = SeededGenerator(seed: seed)
            var versions: [Int: [Int]] = [:]
            for (sector, version) in point.pending { versions[sector, default: []].append(version) }
            for sector in versions.keys.sorted() {
                let candidates = versions[sector] ?? []
                let pick = Int.random(in: 0...candidates.count, using: &random)
                if pick > 0 { chosen[sector] = candidates[pick - 1] }
            }
            if Bool.random(using: &random) { length = point.currentLength }
        }
        let size = journal.sectorSize
        var bytes = [UInt8](repeating: 0, count: length)
        for (sector, version) in chosen.enumerated() where version >= 0 && sector * size < length {
            let count = min(size, length - sector * size)
            let from = versionAt[version]
            bytes.replaceSubrange(sector * size..<sector * size + count, with: journal.bytes[from..<from + count])
        }
        return bytes
    }

    /// What the writer had said at `point`: the operations it acknowledged,
    /// and the one it had begun, in doubt; with the last `unacknowledged`
    /// acknowledged ones counted as in doubt too (what a mode that may lose
    /// them promises).
    ///
    /// - Throws: `CrashViolation` for a line that breaks the writer's protocol.
    public func history(at point: Int, treatingLast unacknowledged: Int = 0) throws(CrashViolation) -> CrashHistory {
        let said = parsed.prefix(points[point].lines).compactMap { $0 }
        let acknowledged = acknowledged(at: point)
        var history = CrashHistory()
        var seen = 0
        for line in said {
            switch line.event {
            case .ready, .begin:
                try history.record(line, slot: 0)
            case .ack:
                seen += 1
                if seen > acknowledged - unacknowledged {
                    history.writerDied(slot: 0)
                } else {
                    try history.record(line, slot: 0)
                }
            }
        }
        history.writerDied(slot: 0)
        return history
    }

    /// Acknowledgements printed before `point`.
    public func acknowledged(at point: Int) -> Int {
        acknowledgements(in: points[point].lines)
    }

    /// Acknowledgements printed before `point` but not before the last sync
    /// that returned before it began: a mode that does not sync the meta
    /// page may lose these (the last commit, and operations that committed
    /// nothing since).
    public func unsynced(at point: Int) -> Int {
        acknowledged(at: point) - acknowledgements(in: points[point].linesBeforeLastSync)
    }

    /// Acknowledgements among the first `count` lines.
    private func acknowledgements(in count: Int) -> Int { acknowledgementsBefore[count] }

    /// Acknowledgements among all the lines.
    public var acknowledgements: Int { acknowledgementsBefore[lines.count] }

    /// The latest clock time of any operation the writer began.
    public var latestTime: Int64? { parsed.compactMap { $0?.operation?.time }.max() }
}

extension PowerCutState.Kind {
    /// Sorts a point's states: none, prefixes, subsets, all.
    var order: Int {
        switch self {
        case .none: 0
        case .prefix(let count): count
        case .subset: Int.max - 1
        case .all: Int.max
        }
    }
}
