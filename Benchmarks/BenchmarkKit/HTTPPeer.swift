import Foundation
import ShareHTTP
import ShareLog
import ShareSync

/// `sharelog-bench http`: the gateway of the HTTP workload, in a process of
/// its own so that its CPU time can be read from /proc. It makes the
/// library calls `sharelog http` makes (`Gateway`, `HTTPServer`), with the
/// store's clock fixed at `now` as the sync peers' is, and these options:
///
/// - `--no-rate-limit`: every request comes from 127.0.0.1, and a tenth of
///   them are unknown ids, which the miss limit would answer with 429 after
///   20;
/// - `--max-connections 2000 --max-per-address 2000`: for 50 `wrk`
///   connections (the default allows 16 per address) and the 1,000 idle ones;
/// - `--threads` as the workload says (one per core of the server's);
/// - `--write-api`: the write API too, without its per-token rate limit,
///   for the upload workload (`UploadWorkload`), whose token is in the
///   store already.
///
/// Its access log, one `write(2)` a line as `sharelog http` writes it on
/// standard error, goes to `accessLog` (/dev/null in the workload: the
/// formatting and the system call are paid, not the disk).
///
/// It prints `ready`, then `listening PORT`, and serves until it is killed
/// or the benchmark that started it is gone.
public enum HTTPPeer {
    /// The line after `ready` that says the port: `listening PORT`.
    static let portPrefix = "listening "

    /// - Returns: the exit code and, on failure, the reason.
    public static func serve(
        store path: String, now: Int64, threads: Int, certificate: String?, key: String?, accessLog: String, writeAPI: Bool = false
    ) -> (code: Int32, error: String?) {
        do {
            let store = try ShareStore.open(at: path, options: SyncPeer.options(now: now))
            var gateway = GatewayConfiguration()
            gateway.requestLimit = nil
            gateway.missLimit = nil
            var server = HTTPServerConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 0))
            server.threads = threads
            server.maxConnections = 2000
            server.maxConnectionsPerAddress = 2000
            switch (certificate, key) {
            case (nil, nil): break
            case (let certificate?, let key?):
                guard let pem = FileManager.default.contents(atPath: certificate), let keyPEM = FileManager.default.contents(atPath: key) else {
                    return (1, "cannot read \(certificate) or \(key)")
                }
                server.tls = HTTPServerConfiguration.TLSCredentials(certificatePEM: Array(pem), keyPEM: Array(keyPEM))
                gateway.strictTransportSecurity = true
            default:
                return (2, "--cert and --key go together")
            }
            let log = open(accessLog, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard log >= 0 else { return (1, "cannot open \(accessLog): \(String(cString: strerror(errno)))") }
            let running = try HTTPServer(
                serving: Gateway(
                    source: store, configuration: gateway, clock: FixedClock(Timestamp(milliseconds: now)),
                    writeAPI: writeAPI ? WriteAPI(store: store, limit: nil) : nil),
                configuration: server,
                log: { record in
                    let bytes = Array("sharelog: \(record.message)\n".utf8)
                    bytes.withUnsafeBytes { _ = write(log, $0.baseAddress, $0.count) }
                })
            guard case .tcp(_, let port) = running.endpoint else { return (1, "the server did not listen on TCP") }
            SyncPeer.printLine(SyncPeer.readyLine)
            SyncPeer.printLine(portPrefix + String(port))
            let parent = getppid()
            while getppid() == parent { usleep(100_000) }
            running.stop(grace: .seconds(1))
            return (0, nil)
        } catch {
            return (1, "\(error)")
        }
    }
}
