import Foundation
import TestSupport

/// One `nats-server` with JetStream on its own (no cluster), a stream key,
/// and replicas that share it: for relay tests where the cluster is not
/// the subject. The stream holds one copy (`--replicas 1`).
final class SingleServerFixture {
    let directory: TemporaryDirectory
    let cluster: NatsCluster
    let keyPath: String
    let observer: StreamObserver

    init(_ label: String) throws {
        directory = TemporaryDirectory(label)
        cluster = try NatsCluster(size: 1, in: directory.appending("nats"))
        keyPath = directory.appending("stream.key")
        try RelayReplica.makeStreamKey(at: keyPath)
        observer = StreamObserver(cluster: cluster, stream: "SHARELOG")
    }

    deinit { cluster.shutdown() }

    func replica(_ label: String) throws -> RelayReplica {
        try RelayReplica(label, in: directory.path, streamKey: keyPath)
    }
}
