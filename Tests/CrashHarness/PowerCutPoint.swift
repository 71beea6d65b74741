/// A moment at which the power could go: just after one of the journal's
/// snapshots, with what was durable then and what was only written.
public struct PowerCutPoint: Sendable {
    /// The index in `PowerCutJournal.records` of the snapshot it follows.
    public let record: Int
    /// How many lines the writer had printed before it: those are what a
    /// user had been told.
    public let lines: Int
    /// How many lines the writer had printed when the last sync that
    /// returned before the cut began: that sync put everything written
    /// before it on disk, the meta page of every earlier commit included.
    public let linesBeforeLastSync: Int
    /// For each sector, the version (an index into `PowerCutSpace`'s
    /// versions) that completed syncs put on disk; -1 for zeros.
    let durable: [Int]
    /// The file's length as the last completed sync left it.
    let durableLength: Int
    /// The journal record of the sync that made `durableLength` durable.
    let durableLengthRecord: Int
    /// The file's length at the cut.
    let currentLength: Int
    /// The sector versions written since the durable ones, oldest first;
    /// a power cut may have put any of them on disk.
    let pending: [(sector: Int, version: Int)]
}
