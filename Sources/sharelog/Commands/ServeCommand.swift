import Glibc
import ShareLog
import ShareSync

struct ServeCommand: Command {
    static let name = "serve"
    static let synopsis =
        "serve --listen unix:PATH|tcp:HOST:PORT | --stdio [--key-file F] [--max-connections 64] [--max-clip-sessions 16] [--clip-idle-timeout 10] "
        + "[--max-handshakes 256] [--heartbeat 5] [--peer-timeout 20] [--maintenance on|off] [--maintenance-every 60] [--metrics tcp:HOST:PORT|unix:PATH]"
    static let summary = "Serve the store to sync clients until SIGINT or SIGTERM (SIGHUP re-reads --key-file); one log line per session on stderr."

    static let options: [OptionSpec] = SyncOptions.options(endpoint: "listen") + [
        .value("max-connections", "64", "main sessions at once (1 to 10000)"),
        .value("max-clip-sessions", "16", "clip sessions at once (0 to 10000)"),
        .value("clip-idle-timeout", "10", "seconds a clip may ask for nothing before its session ends (1 to 3600)"),
        .value("max-handshakes", "256", "connections waiting to finish their handshake (1 to 100000)"),
        .value("handshake-timeout", "5", "seconds a new connection has to finish its handshake (1 to 3600)", hidden: true),
    ] + MaintenanceOptions.options + MetricsOptions.options

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let sync = try SyncOptions(&arguments, endpointOption: "listen")
        let maxConnections = try arguments.integer("max-connections", in: 1...10_000) ?? 64
        let maxClipSessions = try arguments.integer("max-clip-sessions", in: 0...10_000) ?? 16
        let clipIdleTimeout = try arguments.integer("clip-idle-timeout", in: 1...3600)
        let maxHandshakes = try arguments.integer("max-handshakes", in: 1...100_000) ?? 256
        // Hidden (not in the synopsis): how long a connection may take to
        // finish its handshake, 5 s by default; the fault tests shorten it.
        let handshakeTimeout = try arguments.integer("handshake-timeout", in: 1...3600)
        let maintenance = try MaintenanceOptions(&arguments)
        let metricsOptions = try MetricsOptions(&arguments)
        try arguments.finish()
        if case .stdio = sync.endpoint, metricsOptions.endpoint != nil {
            throw CLIError.usage("--metrics is for a listening server; a --stdio server lives for one session")
        }
        let store = try context.openStore(commitWatchFallback: sync.session.heartbeatInterval)
        defer { store.close() }
        var configuration = SyncServerConfiguration(endpoint: sync.endpoint)
        configuration.key = sync.key
        configuration.options = sync.session
        if let handshakeTimeout { configuration.options.handshakeTimeout = .seconds(handshakeTimeout) }
        if let clipIdleTimeout { configuration.options.clipIdleTimeout = .seconds(clipIdleTimeout) }
        configuration.maxConnections = maxConnections
        configuration.maxClipSessions = maxClipSessions
        configuration.maxWaitingConnections = maxHandshakes
        // The server never waits on its log: a standard error nobody reads
        // costs lines (counted), not progress.
        configuration.log = { ProcessLog.record($0) }
        let metrics = try metricsOptions.start(store)
        defer { metrics?.stop() }
        configuration.metrics = metrics.map { SyncServerMetrics(registry: $0.registry) }
        let server = SyncServer(store: store, configuration: configuration)
        let sessions = SessionContext()
        StopSignals.install(sessions) { number in
            metrics?.endpoint.set(.stopping)
            logEvent("signal.stop", "signal \(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
        }
        if case .stdio = sync.endpoint {
            ProcessLog.record(server.serveStdio(context: sessions))
            return ExitCode.success
        }
        // Not for --stdio: there SIGHUP is ssh's hangup, and ends the process.
        ReloadSignal.install { ProcessLog.record(reload(server, keyFile: sync.keyFile)) }
        // A --stdio server lives for one session (ssh starts one per
        // connection): the store's maintainer is the listening server, or
        // 'sharelog maintain'.
        let maintainer = maintenance.start(store, metrics: metrics?.maintenance)
        defer { maintainer?.stop() }
        do { try server.serve(context: sessions) { _ in metrics?.endpoint.set(.ready) } } catch { throw CLIError.failure("\(error)") }
        return ExitCode.success
    }

    /// Reads `keyFile` again and gives its key to `server` for the
    /// connections it accepts from now on; the line to log, which says
    /// what happened. A key that cannot be read or used changes nothing.
    private static func reload(_ server: SyncServer, keyFile: String?) -> LogRecord {
        guard let keyFile else { return LogRecord(.info, "sync.reload", "signal SIGHUP: nothing to reload: this server has no --key-file (limits are read only at start)") }
        do {
            try server.replaceKey(with: SyncKey.load(from: keyFile))
        } catch {
            return LogRecord(.warning, "sync.reload", "signal SIGHUP: could not reload --key-file, still serving with the key it had: \(error)")
        }
        return LogRecord(.info, "sync.reload", "signal SIGHUP: reloaded --key-file \(keyFile): new connections must hold its key; sessions already running go on")
    }
}
