import Foundation
import TestSupport

/// What the cluster's servers themselves say about a stream, and hold of
/// it on disk: an oracle that owes nothing to the relay.
struct StreamObserver {
    let cluster: NatsCluster
    let stream: String

    /// Each running server's count of the stream's messages, from its own
    /// `/jsz?streams=true` (nil for a server that answers without it).
    func messageCounts() -> [Int?] {
        (0..<cluster.size).filter { cluster.pid($0) != nil }.map { index in
            (streamDetail(index)?["state"] as? [String: Any])?["messages"] as? Int
        }
    }

    /// Server `index`'s `/jsz?streams=true` entry for the stream.
    private func streamDetail(_ index: Int) -> [String: Any]? {
        guard let reply = try? LoopbackHTTP.get(port: cluster.ports[index].monitor, path: "/jsz?streams=true"),
            let accounts = reply.jsonObject?["account_details"] as? [[String: Any]]
        else { return nil }
        return accounts.flatMap { $0["stream_detail"] as? [[String: Any]] ?? [] }.first { $0["name"] as? String == stream }
    }

    /// The server that leads the stream's replicas now, as the first
    /// running server that answers says; nil while there is none.
    func leader() -> Int? {
        for index in 0..<cluster.size where cluster.pid(index) != nil {
            guard let detail = streamDetail(index), let cluster = detail["cluster"] as? [String: Any],
                let name = cluster["leader"] as? String
            else { continue }
            return self.cluster.serverNames.firstIndex(of: name)
        }
        return nil
    }

    /// Waits until every running server holds exactly `count` messages of
    /// the stream: a replica that missed some, or a doubled one, never gets there.
    func waitUntilEveryServerHolds(_ count: Int, timeout: Duration = .seconds(60)) throws {
        var last: [Int?] = []
        do {
            try Deadline.block(until: "every server holds \(count) messages of \(stream)", timeout: timeout, every: .milliseconds(50)) {
                last = messageCounts()
                return !last.isEmpty && last.allSatisfy { $0 == count }
            }
        } catch let error as DeadlineExceeded {
            throw HarnessFailure.unexpected("\(error): the servers hold \(last)")
        }
    }

    /// The files under the cluster's directory whose bytes contain
    /// `needle`: the servers' stream and meta files, as a backup would copy them.
    func filesContaining(_ needle: [UInt8]) throws -> [String] {
        let root = cluster.directory
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            let path = (root as NSString).appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let bytes = FileManager.default.contents(atPath: path)
            else { continue }
            if bytes.range(of: Data(needle)) != nil { found.append(relative) }
        }
        return found
    }
}
