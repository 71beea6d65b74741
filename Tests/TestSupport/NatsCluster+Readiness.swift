import Foundation

extension NatsCluster {
    /// What one server's monitoring endpoints said: /healthz's status and,
    /// from /jsz's `meta_cluster`, the meta leader it knows, the cluster
    /// size, and (on the leader only) whether each other peer is current.
    struct Observation: CustomStringConvertible {
        let server: String
        var health = "no answer"
        var leader: String?
        var clusterSize: Int?
        var replicas: [String: Bool] = [:]

        var description: String {
            "\(server): healthz \(health), leader \(leader ?? "none"), cluster_size \(clusterSize.map(String.init) ?? "none"), replicas \(replicas)"
        }
    }

    /// Waits until the JetStream of every running server is ready:
    /// - each one's `GET /healthz` answers 200 `{"status":"ok"}`;
    /// - each one's `GET /jsz` reports `meta_cluster.cluster_size == size`
    ///   and the same meta leader, one of the running servers;
    /// - the leader's /jsz lists every other running server as a current replica.
    ///
    /// A single server has no meta cluster: its /healthz alone says.
    ///
    /// After `kill`, this is the survivors electing a leader among themselves
    /// (nats-server 2.9 takes several seconds when the leader was killed);
    /// it never ends while fewer than a majority run. Throws
    /// `NatsClusterError.notReady` after `timeout`, and `.serverExited` or
    /// `.portTaken` as soon as a running server exits (and reaps it).
    public func waitUntilReady(timeout: Duration = NatsCluster.readyTimeout) throws {
        var observed = "nothing yet"
        do {
            try Deadline.block(until: "every running nats-server's JetStream is ready", timeout: timeout, every: .milliseconds(50)) {
                try checkRunning()
                let running = (0..<size).filter { runningServer($0) != nil }
                let observations = running.map(observe)
                observed = observations.map(\.description).joined(separator: "; ")
                return isReady(running, observations)
            }
        } catch let error as DeadlineExceeded {
            throw NatsClusterError.notReady(what: error.description, observed: observed, logs: logTails())
        }
    }

    private func isReady(_ running: [Int], _ observations: [Observation]) -> Bool {
        if size == 1 { return observations.allSatisfy { $0.health == "ok" } }
        let runningNames = Set(running.map { serverNames[$0] })
        guard observations.allSatisfy({ $0.health == "ok" && $0.clusterSize == size }),
            let leader = observations.first?.leader, runningNames.contains(leader),
            observations.allSatisfy({ $0.leader == leader }),
            let leaderView = observations.first(where: { $0.server == leader })
        else { return false }
        return runningNames.subtracting([leader]).allSatisfy { leaderView.replicas[$0] == true }
    }

    /// Asks server `index`'s /healthz and /jsz; a request that fails leaves
    /// its part of the observation empty.
    private func observe(_ index: Int) -> Observation {
        var observation = Observation(server: serverNames[index])
        let port = ports[index].monitor
        if let health = try? LoopbackHTTP.get(port: port, path: "/healthz") {
            observation.health = health.status == 200 ? (health.jsonObject?["status"] as? String ?? health.text) : "\(health.status) \(health.text)"
        }
        if let meta = (try? LoopbackHTTP.get(port: port, path: "/jsz"))?.jsonObject?["meta_cluster"] as? [String: Any] {
            observation.leader = meta["leader"] as? String
            observation.clusterSize = meta["cluster_size"] as? Int
            for replica in meta["replicas"] as? [[String: Any]] ?? [] {
                if let name = replica["name"] as? String { observation.replicas[name] = replica["current"] as? Bool ?? false }
            }
        }
        return observation
    }

    /// Drains every running server's pipes; throws when one has exited.
    private func checkRunning() throws {
        for index in 0..<size {
            guard let server = runningServer(index) else { continue }
            drain(index, server)
            guard !server.isRunning else { continue }
            let ended = server.termination
            reap(index, server)
            let log = logs(index)
            if log.contains("address already in use") {
                throw NatsClusterError.portTaken(index: index, ports: ports[index], log: log)
            }
            throw NatsClusterError.serverExited(index: index, status: ended?.status ?? -1, signaled: ended?.signaled ?? false, log: log)
        }
    }

    /// The last lines of every server's log, for a failure message.
    private func logTails(lines: Int = 15) -> String {
        (0..<size).map { index in
            let tail = logs(index).split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
            return "--- \(serverNames[index]) (\(logPath(index))), last lines ---\n\(tail)"
        }.joined(separator: "\n")
    }
}
