/// A share a trim pass found past the horizon, with every log entry of its
/// record name up to the end of that pass's read of the log.
struct TrimCandidate {
    struct Entry {
        let position: UInt64
        let id: EventID
        let holdsCard: Bool
    }

    let name: RecordName
    /// The state's bytes when the pass read them: the write checks they
    /// are unchanged, so a share that moved meanwhile is left alone.
    let state: [UInt8]
    var entries: [Entry] = []
}
