import Foundation

/// A share's record name: a random UUID that also works as a capability,
/// as in CloudKit's public database.
public struct RecordName: Identifier {
    public let uuid: UUID
    public init(uuid: UUID) { self.uuid = uuid }
}
