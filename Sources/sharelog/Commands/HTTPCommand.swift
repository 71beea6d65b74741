import Dispatch
import Foundation
import ShareHTTP
import ShareLog
import SharePrimitives
import ShareSync

struct HTTPCommand: Command {
    static let name = "http"
    static let synopsis = """
        http [--listen tcp:HOST:PORT|unix:PATH] [--cert F --key F] [--app-id TEAMID.BUNDLE.Clip ...] [--full-app-id TEAMID.BUNDLE ...] \
        [--app-store-id N] [--max-connections 1024] [--max-per-address 16] [--threads 2] [--trusted-proxy ADDRESS ...] \
        [--header-timeout 10] [--request-limit 100,20ms] [--miss-limit 20,20s] [--write-api on|off] [--write-limit 100,100ms] [--no-rate-limit] \
        [--maintenance on|off] [--maintenance-every 60] [--metrics tcp:HOST:PORT|unix:PATH]
        """
    static let summary =
        "Serve the store's share links over HTTP(S) to App Clips, browsers and Apple's CDN until SIGINT or SIGTERM (SIGHUP re-reads --cert and --key); "
        + "one log line per request on stderr."

    static let options: [OptionSpec] = [
        .value("listen", "tcp:HOST:PORT|unix:PATH", "where to serve (default: tcp:127.0.0.1:8080)"),
        .value("cert", "F", "the TLS certificate chain (PEM); with --key, serve HTTPS"),
        .value("key", "F", "the TLS private key (PEM) for --cert"),
        .values("app-id", "TEAMID.BUNDLE.Clip", "the App Clip's app identifier, for the association file"),
        .values("full-app-id", "TEAMID.BUNDLE", "the full app's app identifier, for the association file"),
        .value("app-store-id", "N", "the full app's App Store id, for the Smart App Banner"),
        .value("max-connections", "1024", "connections served at once"),
        .value("max-per-address", "16", "connections at once from one client address"),
        .value("threads", "2", "threads that answer requests"),
        .values("trusted-proxy", "ADDRESS", "a proxy whose X-Forwarded-For names the client"),
        .value("header-timeout", "10", "seconds a client has to send its request's headers"),
        .value("idle-timeout", "10", "seconds a connection may stay silent (1 to 3600)", hidden: true),
        .value("request-limit", "100,20ms", "requests per client address: a burst, then one per interval"),
        .value("miss-limit", "20,20s", "unknown ids per client address: a burst, then one per interval"),
        .value("write-api", "on|off", "serve the write API under /v1/shares, for bearers of the store's tokens (default: on)"),
        .value("write-limit", "100,100ms", "write API requests per token: a burst, then one per interval"),
        .flag("no-rate-limit", "turn every rate limit off (benchmarks, trusted networks)"),
    ] + MaintenanceOptions.options + MetricsOptions.options

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let listen = try arguments.option("listen") ?? "tcp:127.0.0.1:8080"
        let endpoint: Endpoint
        do { endpoint = try Endpoint(parsing: listen) } catch { throw CLIError.invalidInput("--listen: \(error)") }
        switch endpoint {
        case .tcp, .unix: break
        default: throw CLIError.invalidInput("--listen: HTTP is served on tcp:HOST:PORT or unix:PATH, not \(endpoint)")
        }
        let certificate = try arguments.option("cert")
        let key = try arguments.option("key")
        var gateway = GatewayConfiguration()
        do {
            gateway.clipAppIDs = try arguments.values("app-id").map { text throws(GatewayConfigurationError) in try AppIdentifier(text) }
            gateway.fullAppIDs = try arguments.values("full-app-id").map { text throws(GatewayConfigurationError) in try AppIdentifier(text) }
        } catch let error as GatewayConfigurationError {
            throw CLIError.invalidInput("\(error)")
        }
        if let appStoreID = try arguments.option("app-store-id") {
            guard GatewayConfiguration.isAppStoreID(appStoreID) else {
                throw CLIError.invalidInput("--app-store-id: \(GatewayConfigurationError.invalidAppStoreID(appStoreID))")
            }
            gateway.appStoreID = appStoreID
        }
        for text in try arguments.values("trusted-proxy") {
            guard let address = ClientAddress(text: text) else { throw CLIError.invalidInput("--trusted-proxy '\(text)' is not an IPv4 or IPv6 address") }
            gateway.trustedProxies.insert(address)
        }
        if let text = try arguments.option("request-limit") { gateway.requestLimit = try rateLimit(text, "request-limit") }
        if let text = try arguments.option("miss-limit") { gateway.missLimit = try rateLimit(text, "miss-limit") }
        var writeLimit: RateLimit? = .writes
        if let text = try arguments.option("write-limit") { writeLimit = try rateLimit(text, "write-limit") }
        if arguments.flag("no-rate-limit") {
            gateway.requestLimit = nil
            gateway.missLimit = nil
            writeLimit = nil
        }
        let writeAPI: Bool
        switch try arguments.option("write-api") ?? "on" {
        case "on": writeAPI = true
        case "off": writeAPI = false
        case let other: throw CLIError.invalidInput("--write-api '\(other)' is not on or off")
        }
        var server = HTTPServerConfiguration(endpoint: endpoint)
        if let connections = try arguments.integer("max-connections", in: 1...100_000) { server.maxConnections = connections }
        if let connections = try arguments.integer("max-per-address", in: 1...100_000) { server.maxConnectionsPerAddress = connections }
        if let threads = try arguments.integer("threads", in: 1...256) { server.threads = threads }
        if let seconds = try arguments.integer("header-timeout", in: 1...3600) { server.headerTimeout = .seconds(seconds) }
        // Hidden (not in the synopsis): libmicrohttpd's idle timeout, 10 s
        // by default; tests that hold a connection open across a reload
        // lengthen it.
        if let seconds = try arguments.integer("idle-timeout", in: 1...3600) { server.idleTimeout = .seconds(seconds) }
        let maintenance = try MaintenanceOptions(&arguments)
        let metricsOptions = try MetricsOptions(&arguments)
        try arguments.finish()
        switch (certificate, key) {
        case (nil, nil): break
        case (let certificate?, let key?):
            do { server.tls = try .load(certificate: certificate, key: key) } catch { throw CLIError.invalidInput("--cert/--key: \(error)") }
            gateway.strictTransportSecurity = true
        default: throw CLIError.usage("--cert and --key go together: give both for HTTPS, or neither for plain HTTP")
        }

        let store = try context.openStore()
        defer { store.close() }
        if gateway.clipAppIDs.isEmpty && gateway.fullAppIDs.isEmpty {
            logEvent(
                "http.siteAssociation.missing",
                "warning: no --app-id or --full-app-id: /.well-known/apple-app-site-association answers 404, so iOS will not open the App Clip from this domain's links",
                .warning)
        }
        let metrics = try metricsOptions.start(store)
        defer { metrics?.stop() }
        let running: HTTPServer
        do {
            let handler = Gateway(
                source: store, configuration: gateway, clock: context.clock, metrics: metrics.map { GatewayMetrics(registry: $0.registry) },
                writeAPI: writeAPI ? WriteAPI(store: store, limit: writeLimit) : nil)
            running = try HTTPServer(serving: handler, configuration: server, log: { ProcessLog.record($0) })
        } catch HTTPServerError.start(let reason) where server.tls != nil {
            throw CLIError.invalidInput("--cert/--key: libmicrohttpd could not start with them (\(reason)); give a PEM certificate chain and its PEM private key")
        } catch {
            throw CLIError.failure("\(error)")
        }
        // Before the line that says it serves: from then on a signal finds
        // its handler, never its default (which ends the process).
        let stop = DispatchSemaphore(value: 0)
        StopSignals.install { number in
            metrics?.endpoint.set(.stopping)
            logEvent("signal.stop", "signal \(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping; new connections are refused, answers in flight finish")
            stop.signal()
        }
        ReloadSignal.install { ProcessLog.record(reload(running, certificate: certificate, key: key)) }
        let scheme = server.tls == nil ? "http" : "https"
        let base: String
        if case .tcp(let host, let port) = running.endpoint { base = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" } else { base = "\(scheme)+unix" }
        logEvent(
            "http.serving", "http: serving \(context.storePath) at \(base) on \(running.endpoint)", .info,
            [("store", LogValue(context.storePath)), ("url", LogValue(base)), ("endpoint", LogValue("\(running.endpoint)"))])
        let maintainer = maintenance.start(store, metrics: metrics?.maintenance)
        defer { maintainer?.stop() }
        metrics?.endpoint.set(.ready)
        stop.wait()
        running.stop(grace: .seconds(10))
        logEvent(
            "http.stopped", "http: stopped after \(counted(running.statistics.answered, "answer"))", .info,
            [("answers", LogValue(running.statistics.answered))])
        return ExitCode.success
    }

    /// `BURST,INTERVAL`: a burst, then one more every INTERVAL (`20ms`, `20s`, `1m`, `1h`).
    private static func rateLimit(_ text: String, _ option: String) throws -> RateLimit {
        let units: [String: Int64] = ["ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000]
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let burst = Int(parts[0]), (1...1_000_000).contains(burst) else {
            throw CLIError.invalidInput("--\(option) '\(text)' is not BURST,INTERVAL such as 20,20s (a burst of 1 to 1000000, then one more every interval)")
        }
        let interval = parts[1]
        let unit = interval.hasSuffix("ms") ? "ms" : String(interval.suffix(1))
        guard let milliseconds = units[unit], let count = Int64(interval.dropLast(unit.count)), (1...86_400_000).contains(count * milliseconds) else {
            throw CLIError.invalidInput("--\(option) '\(text)': the interval must be like 20ms, 20s, 1m or 1h, and at most a day")
        }
        return RateLimit(burst: burst, interval: .milliseconds(count * milliseconds))
    }

    /// Reads `certificate` and `key` (the `--cert` and `--key` files)
    /// again and gives them to `server` for the connections it accepts
    /// from now on; the line to log, which says what happened. A pair that
    /// cannot be read or used changes nothing.
    private static func reload(_ server: HTTPServer, certificate: String?, key: String?) -> LogRecord {
        guard let certificate, let key else { return LogRecord(.info, "http.reload", "signal SIGHUP: nothing to reload: this gateway has no --cert and --key (limits are read only at start)") }
        let kept = "signal SIGHUP: could not reload --cert/--key, still serving the certificate it had"
        do {
            try server.replaceCertificate(with: .load(certificate: certificate, key: key))
        } catch HTTPServerError.start {
            return LogRecord(.warning, "http.reload", "\(kept): libmicrohttpd could not use them (its reason is on the lines above); give a PEM certificate chain and its PEM private key")
        } catch {
            return LogRecord(.warning, "http.reload", "\(kept): \(error)")
        }
        return LogRecord(.info, "http.reload", "signal SIGHUP: reloaded --cert \(certificate) and --key \(key): new connections get them; connections already open finish with the old ones")
    }
}
