import Foundation
import Glibc
import TestSupport
import Testing
import TestTraits

/// The test harness for the JetStream relay: three real nats-servers
/// clustered on loopback agree on one meta leader, keep one after a server
/// crashes, take the crashed server back, and leave no process or port
/// behind. The expected names and size are the ones the test configures;
/// the cluster's views are read from each server's own /jsz and /healthz.
@Suite(.hangDeadline, .ownThread) struct NatsClusterTests {
    /// `NatsCluster`'s default name "sharelog-test" with each server's index.
    static let names = ["sharelog-test-0", "sharelog-test-1", "sharelog-test-2"]

    @Test func threeServersAgreeOnALeaderSurviveACrashTakeTheServerBackAndStopCleanly() throws {
        let directory = TemporaryDirectory("nats")
        let cluster = try NatsCluster(in: directory.path)
        let monitor = cluster.ports.map(\.monitor)
        #expect(cluster.serverURLList == cluster.ports.map { "nats://127.0.0.1:\($0.client)" }.joined(separator: ","))

        // Every server's /jsz shows the same meta leader, one of the three.
        let views = try monitor.map(Self.view)
        #expect(views.map(\.health) == ["ok", "ok", "ok"], "\(views)")
        #expect(views.map(\.clusterSize) == [3, 3, 3], "\(views)")
        let leader = try #require(views[0].leader, "\(views)")
        #expect(Self.names.contains(leader))
        #expect(views.map(\.leader) == [leader, leader, leader], "\(views)")

        // Crash server 1: it is gone, its ports refuse, the other two agree on a live leader.
        let crashed = try #require(cluster.pid(1))
        cluster.kill(1)
        #expect(Self.isGone(crashed))
        #expect(LoopbackSocket.refusesConnections(port: cluster.ports[1].client))
        #expect(LoopbackSocket.refusesConnections(port: cluster.ports[1].monitor))
        try cluster.waitUntilReady()
        let survivors = try [monitor[0], monitor[2]].map(Self.view)
        #expect(survivors.map(\.health) == ["ok", "ok"], "\(survivors)")
        #expect(survivors.map(\.clusterSize) == [3, 3], "\(survivors)")
        let survivingLeader = try #require(survivors[0].leader, "\(survivors)")
        #expect([Self.names[0], Self.names[2]].contains(survivingLeader), "\(survivors)")
        #expect(survivors[1].leader == survivingLeader, "\(survivors)")

        // Restart it: on its old ports it rejoins, sees the leader, and the leader sees it current.
        try cluster.restart(1)
        let after = try monitor.map(Self.view)
        #expect(after[1].health == "ok", "\(after)")
        #expect(after[1].clusterSize == 3, "\(after)")
        let currentLeader = try #require(after[0].leader, "\(after)")
        #expect(after.map(\.leader) == [currentLeader, currentLeader, currentLeader], "\(after)")
        let leaderIndex = try #require(Self.names.firstIndex(of: currentLeader), "\(after)")
        let followers = Self.names.filter { $0 != currentLeader }
        #expect(followers.map { after[leaderIndex].replicas[$0] } == [true, true], "\(after)")

        // Shut down: no process it started lives, none of its ports answers.
        let pids = (0..<3).compactMap(cluster.pid)
        #expect(pids.count == 3)
        cluster.shutdown()
        #expect(pids.filter { !Self.isGone($0) } == [])
        let open = cluster.ports.flatMap { [$0.client, $0.monitor, $0.cluster] }.filter { !LoopbackSocket.refusesConnections(port: $0) }
        #expect(open == [])
        cluster.shutdown()
        // The servers' directories outlive them: no release after last use.
        withExtendedLifetime(directory) {}
    }

    @Test func aMissingServerSaysHowToInstallIt() {
        #expect(NatsClusterError.serverMissing(path: "/usr/sbin/nats-server").description.contains("apt-get install -y nats-server"))
    }

    /// One server's /healthz status and /jsz `meta_cluster`, parsed here
    /// from the raw JSON, apart from the harness's own readiness check.
    struct View {
        let health: String?
        let leader: String?
        let clusterSize: Int?
        /// Replica name to `current`; only the leader lists its replicas.
        let replicas: [String: Bool]
    }

    static func view(_ port: UInt16) throws -> View {
        let health = try LoopbackHTTP.get(port: port, path: "/healthz")
        let jsz = try LoopbackHTTP.get(port: port, path: "/jsz")
        let healthJSON = try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any]
        let meta = (try JSONSerialization.jsonObject(with: Data(jsz.body)) as? [String: Any])?["meta_cluster"] as? [String: Any]
        var replicas: [String: Bool] = [:]
        for replica in meta?["replicas"] as? [[String: Any]] ?? [] {
            replicas[replica["name"] as? String ?? "?"] = replica["current"] as? Bool
        }
        return View(
            health: healthJSON?["status"] as? String, leader: meta?["leader"] as? String,
            clusterSize: meta?["cluster_size"] as? Int, replicas: replicas)
    }

    /// True when no process `pid` exists: `kill(pid, 0)` fails with ESRCH.
    static func isGone(_ pid: pid_t) -> Bool {
        Glibc.kill(pid, 0) == -1 && errno == ESRCH
    }
}
