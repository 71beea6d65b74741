import Foundation

/// A store's incarnation: made with the store, so a wiped and recreated
/// replica is told apart from its earlier self and stale cursors are caught.
public struct Epoch: Identifier {
    public let uuid: UUID
    public init(uuid: UUID) { self.uuid = uuid }
}
