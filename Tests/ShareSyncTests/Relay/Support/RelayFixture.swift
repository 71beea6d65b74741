import Foundation
import TestSupport

/// `servers` `nats-server`s with JetStream (one on its own, or a cluster),
/// a stream key, and replicas that share it, in a temporary folder; the
/// servers stop with the fixture. With one server the stream holds one
/// copy (`--replicas 1`), for relay tests where the cluster is not the
/// subject.
final class RelayFixture {
    let directory: TemporaryDirectory
    let cluster: NatsCluster
    let keyPath: String
    let observer: StreamObserver

    init(_ label: String, servers: Int = 1) throws {
        directory = TemporaryDirectory(label)
        cluster = try NatsCluster(size: servers, in: directory.appending("nats"))
        keyPath = directory.appending("stream.key")
        try RelayReplica.makeStreamKey(at: keyPath)
        observer = StreamObserver(cluster: cluster, stream: "SHARELOG")
    }

    deinit { cluster.shutdown() }

    func replica(_ label: String) throws -> RelayReplica {
        try RelayReplica(label, in: directory.path, streamKey: keyPath)
    }
}
