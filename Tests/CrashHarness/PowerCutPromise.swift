import LMDB

/// What a durability mode promises after a power cut, which the run checks
/// every state against (docs/RELIABILITY.md "Power loss").
public enum PowerCutPromise: Sendable, Hashable {
    /// `.full`: every acknowledged operation survives, nothing is corrupt.
    case everything
    /// `.noMetaSync` (`MDB_NOMETASYNC`): the last commit's meta page is not
    /// synced, so a cut may lose it: the operations acknowledged since the
    /// last sync began (that commit's, and any that committed nothing
    /// after it) may be missing; nothing is corrupt.
    case allButTheLastCommit
    /// `.noSync` (`MDB_NOSYNC`): no promise; the run only counts.
    case nothing

    public init(_ durability: Environment.Durability) {
        switch durability {
        case .full: self = .everything
        case .noMetaSync: self = .allButTheLastCommit
        case .noSync: self = .nothing
        }
    }

    /// Whether `outcome` is within the promise.
    public func keeps(_ outcome: PowerCutOutcome) -> Bool {
        switch (outcome.verdict, self) {
        case (.intact, _), (.repeated, _), (_, .nothing): true
        case (.lost, .allButTheLastCommit): outcome.lost <= outcome.unsynced
        case (.lost, .everything), (.corrupt, _): false
        }
    }
}
