import Foundation
import ShareLog
import TestSupport

/// The servers of the HTTP workload, running on the server cores: the
/// gateway twice (`sharelog-bench http`, plain HTTP and TLS, each a process
/// of its own) on the ShareLog store, and nginx on the same cards as files
/// (plain and TLS ports of one nginx). `stop()` (or dropping it) stops all.
final class HTTPStage {
    /// Who answers a row.
    enum Server {
        case gateway, nginx
    }

    let files: HTTPBenchFiles
    private let gateway: PeerProcess
    private let gatewayTLS: PeerProcess
    let gatewayPort: UInt16
    let gatewayTLSPort: UInt16
    let nginx: NginxServer

    /// Starts the servers. The gateways' threads and nginx's workers are
    /// `pinning.serverThreads` each.
    init(context: BenchContext, store: String, files: HTTPBenchFiles, pinning: CPUPinning) throws {
        self.files = files
        func startGateway(tls: Bool) throws -> (PeerProcess, UInt16) {
            var arguments = [
                context.executables.bench, "http", "--store", store, "--now", String(SyncBench.now),
                "--threads", String(pinning.serverThreads), "--access-log", "/dev/null",
            ]
            if tls { arguments += ["--cert", files.certificate, "--key", files.key] }
            let command = pinning.command(arguments, on: pinning.server)
            let peer = try PeerProcess(bench: command[0], Array(command.dropFirst()), what: tls ? "the TLS gateway" : "the gateway")
            let line = try peer.nextLine(within: .seconds(30))
            guard line.hasPrefix(HTTPPeer.portPrefix), let port = UInt16(line.dropFirst(HTTPPeer.portPrefix.count)) else {
                throw BenchError.process("the gateway said '\(line)' instead of its port")
            }
            return (peer, port)
        }
        (gateway, gatewayPort) = try startGateway(tls: false)
        (gatewayTLS, gatewayTLSPort) = try startGateway(tls: true)
        nginx = try NginxServer(
            directory: files.directory, workers: pinning.serverThreads, files: files.picks.count, certificate: files.certificate, key: files.key,
            command: { pinning.command($0, on: pinning.server) })
    }

    deinit { stop() }

    func stop() {
        gateway.stop()
        gatewayTLS.stop()
        nginx.stop()
    }

    /// The base URL of `server`, plain or TLS.
    func url(_ server: Server, tls: Bool) -> String {
        let port = switch server {
        case .gateway: tls ? gatewayTLSPort : gatewayPort
        case .nginx: tls ? nginx.tlsPort : nginx.plainPort
        }
        return "\(tls ? "https" : "http")://127.0.0.1:\(port)"
    }

    /// The processes whose CPU time is `server`'s.
    func processes(_ server: Server, tls: Bool) -> [pid_t] {
        switch server {
        case .gateway: [tls ? gatewayTLS.pid : gateway.pid]
        case .nginx: nginx.processes
        }
    }

    /// Checks that every server answers a live id with its card, byte for
    /// byte, and an unknown id with 404, over plain HTTP and TLS (`curl`,
    /// `Accept: text/vcard`): else their times would not compare.
    ///
    /// - Returns: the bytes of the live card each served.
    /// - Throws: `BenchError.mismatch` when one differs.
    @discardableResult
    func checkSameAnswers(names: [RecordName], deck: CardDeck) throws -> Int {
        guard let live = files.picks.lazy.compactMap({ if case .live(let index) = $0 { index } else { nil } }).first,
              let unknown = files.picks.lazy.compactMap({ if case .unknown(let bytes) = $0 { bytes } else { nil } }).first
        else { throw BenchError.mismatch("the id list has no live or no unknown id") }
        for server in [Server.gateway, .nginx] {
            for tls in [false, true] {
                let base = url(server, tls: tls)
                let card = try Self.fetch(base + "/appclip?id=\(names[live])", in: files.directory)
                guard card.status == 200, card.body == deck.card(live) else {
                    throw BenchError.mismatch("\(base) answered \(card.status) with \(card.body.count) bytes for share \(live), not its \(deck.card(live).count)-byte card")
                }
                let missing = try Self.fetch(base + "/appclip?id=\(HTTPBenchFiles.name(unknown))", in: files.directory)
                guard missing.status == 404 else { throw BenchError.mismatch("\(base) answered \(missing.status) for an unknown id, not 404") }
            }
        }
        return deck.card(live).count
    }

    /// `GET url` with `Accept: text/vcard` through `curl` (certificates
    /// not checked: the workload's is self-signed); the body goes through
    /// a file in `directory`.
    static func fetch(_ url: String, in directory: String) throws -> (status: Int, body: [UInt8]) {
        let file = (directory as NSString).appendingPathComponent("curl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let outcome = try ProcessRunner.check(
            "/usr/bin/curl", ["-sS", "-k", "--max-time", "10", "-H", "Accept: text/vcard", "-o", file, "-w", "%{http_code}", url])
        guard let status = Int(outcome.outputText), let body = FileManager.default.contents(atPath: file) else {
            throw BenchError.process("curl \(url) printed '\(outcome.outputText)'")
        }
        return (status, Array(body))
    }
}
