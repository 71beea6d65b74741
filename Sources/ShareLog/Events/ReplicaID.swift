import Foundation

/// The identity of a replica (a store), made once when the store is created.
public struct ReplicaID: Identifier {
    public let uuid: UUID
    public init(uuid: UUID) { self.uuid = uuid }
}
