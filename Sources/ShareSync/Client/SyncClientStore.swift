import Foundation
import SharePrimitives
import ShareLog

/// The store a `SyncClient` syncs: one that is open already, or one that
/// is made only once a server has accepted a session.
///
/// The second is for a client that would create a missing store (`sharelog
/// sync`, `clip open`): nothing is made until a server is there and has
/// said yes, so a typo in the endpoint (no socket at a path, nothing
/// listening at a port, a command that cannot be run or ends at once), an
/// unreachable host, or a server that refuses the session leaves no store
/// behind, over every transport. Nothing has to be removed after a
/// failure, which would be unsafe: another process may be opening the same
/// new store.
///
/// The hello names the replica before the store exists, so a store to be
/// made draws its replica id and epoch when this is made, announces them,
/// and is created with them (`ShareStore.open(at:creatingIfMissing:options:)`
/// with `creatingIfMissing`) once the server has accepted. If another
/// process made the store at that path in the meantime, the open finds
/// that store and its own id; the session then ends with
/// `SyncFailure.storeMadeElsewhere` before anything moves, and the next
/// session (`SyncClient.follow`, or a second `run`) announces that store's
/// id. Once made, the store is the one every later session with this
/// instance syncs (`store`).
public final class SyncClientStore: Sendable {
    private enum Source {
        case open(ShareStore)
        case pending(path: String, options: ShareStore.Options, replica: ReplicaID, epoch: Epoch)
    }

    private let source: Locked<Source>

    /// A store that is open: every session syncs it.
    public init(_ store: ShareStore) { source = Locked(.open(store)) }

    /// The store at `path`, made (or opened, if one is there by then) with
    /// `options` only once a server has accepted a session. `options`
    /// must be for writing (`environment.readOnly` false).
    public init(makingAt path: String, options: ShareStore.Options = ShareStore.Options()) {
        source = Locked(.pending(path: path, options: options, replica: .random(), epoch: .random()))
    }

    /// The store, once there is one: at once for an open store, after the
    /// first accepted session for one to be made; nil before.
    public var store: ShareStore? {
        source.withLock { source in
            if case .open(let store) = source { store } else { nil }
        }
    }

    /// The replica id and epoch the next session announces in its hello.
    var identity: (replica: ReplicaID, epoch: Epoch) {
        source.withLock { source in
            switch source {
            case .open(let store): (store.replicaID, store.epoch)
            case .pending(_, _, let replica, let epoch): (replica, epoch)
            }
        }
    }

    /// The store, made now if it is not open yet: called once the server
    /// has accepted a session that announced `identity`.
    ///
    /// - Throws: `SyncFailure.store` when the open fails;
    ///   `SyncFailure.storeMadeElsewhere` when the store found there has
    ///   another replica id or epoch than the session announced.
    func opened() throws(SyncFailure) -> ShareStore {
        try source.withLock { source throws(SyncFailure) -> ShareStore in
            switch source {
            case .open(let store):
                return store
            case .pending(let path, var options, let replica, let epoch):
                options.identityIfCreated = (replica, epoch)
                let store: ShareStore
                do throws(ShareLogError) { store = try ShareStore.open(at: path, creatingIfMissing: true, options: options) } catch { throw .store(error) }
                source = .open(store)
                guard store.replicaID == replica, store.epoch == epoch else {
                    throw .storeMadeElsewhere(path: path)
                }
                return store
            }
        }
    }
}
