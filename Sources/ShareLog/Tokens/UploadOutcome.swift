/// What `ShareStore.create(vCard:ttl:claim:)` did with an upload.
public enum UploadOutcome: Hashable, Sendable {
    /// A new share, made now.
    case created(CreatedShare)
    /// The key came before with the same request: the share it made then,
    /// as it was made (it may have ended since). Nothing was written.
    case replayed(CreatedShare)
    /// The key came before with another request, first at `firstSeen`.
    /// Nothing was written.
    case keyReused(firstSeen: Timestamp)
}
