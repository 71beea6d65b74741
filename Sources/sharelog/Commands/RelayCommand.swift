import Foundation
import Glibc
import ShareLog
import ShareSync
import SharePrimitives

struct RelayCommand: Command {
    static let name = "relay"
    static let synopsis =
        "relay --nats URL[,URL…] --stream-key F [--stream SHARELOG] [--subject-prefix shares] [--replicas 3] [--creds F | --tls-ca F [--tls-cert F --tls-key F]] [--snapshot-from unix:PATH|tcp:HOST:PORT [--key-file F]] "
        + "[--maintenance on|off] [--maintenance-every 60] [--metrics tcp:HOST:PORT|unix:PATH]"
    static let summary =
        "Relay the store through a NATS JetStream stream until SIGINT or SIGTERM (SIGHUP re-reads --key-file): publish its own events, apply every other replica's."

    struct Output: Encodable {
        let stream: String
        let counts: RelayStatistics.Counts
        let milliseconds: Int64
    }

    static let options: [OptionSpec] = [
        .value("nats", "URL[,URL…]", "the NATS servers of the JetStream cluster"),
        .value("stream-key", "F", "the stream key file (sharelog relay-key), the same on every replica"),
        .value("stream", "SHARELOG", "the JetStream stream's name"),
        .value("subject-prefix", "shares", "the prefix of the stream's subjects"),
        .value("replicas", "3", "the stream's replicas, when the relay creates it"),
        .value("creds", "F", "a NATS credentials file"),
        .value("tls-ca", "F", "trust these certificate authorities (PEM) for NATS over TLS"),
        .value("tls-cert", "F", "a client certificate (PEM) for NATS over TLS"),
        .value("tls-key", "F", "the client certificate's key (PEM)"),
        .value("snapshot-from", "ENDPOINT", "a sync server to take a snapshot from when the stream lost messages"),
        .value("key-file", "F", "the sync key for --snapshot-from"),
    ] + MaintenanceOptions.options + MetricsOptions.options

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        guard let urls = try arguments.option("nats") else {
            throw CLIError.usage("give --nats nats://HOST:PORT (several, comma-separated, for a cluster)")
        }
        var connectionOptions = JetStreamConnection.Options(servers: urls.split(separator: ",").map(String.init))
        connectionOptions.credentialsFile = try arguments.option("creds")
        connectionOptions.tlsCAFile = try arguments.option("tls-ca")
        connectionOptions.tlsCertificateFile = try arguments.option("tls-cert")
        connectionOptions.tlsKeyFile = try arguments.option("tls-key")
        guard (connectionOptions.tlsCertificateFile == nil) == (connectionOptions.tlsKeyFile == nil) else {
            throw CLIError.usage("--tls-cert and --tls-key go together")
        }
        guard let keyPath = try arguments.option("stream-key") else {
            throw CLIError.usage(
                "give --stream-key FILE: cards travel sealed under it, so the stream's copies become unreadable within an hour of expiry. "
                    + "Make one with 'sharelog relay-key FILE' and copy it to every replica")
        }
        var options = StreamRelay.Options()
        options.clock = context.clock
        if let name = try arguments.option("stream") { options.stream.name = try token(name, "--stream") }
        if let prefix = try arguments.option("subject-prefix") { options.stream.subjectPrefix = try token(prefix, "--subject-prefix") }
        if let replicas = try arguments.integer("replicas", in: 1...5) { options.stream.replicas = replicas }
        var snapshotKeyFile: String?
        if let peer = try arguments.option("snapshot-from") {
            var request: SyncRequest
            do { request = SyncRequest(endpoint: try Endpoint(parsing: peer)) } catch { throw CLIError.invalidInput("--snapshot-from: \(error)") }
            snapshotKeyFile = try arguments.option("key-file")
            if let path = snapshotKeyFile {
                do { request.key = try SyncKey.load(from: path) } catch { throw CLIError.invalidInput("--key-file: \(error)") }
            }
            request.directions = .pull
            options.snapshotFrom = request
        }
        let maintenance = try MaintenanceOptions(&arguments)
        let metricsOptions = try MetricsOptions(&arguments)
        try arguments.finish()
        let keyring: StreamKeyring
        do { keyring = try StreamKeyring(path: keyPath, now: context.clock.now()) } catch { throw CLIError.invalidInput("--stream-key: \(error)") }
        // Connected before the store is opened (and perhaps created), so a
        // cluster that cannot be reached leaves no store behind.
        let connection: JetStreamConnection
        do {
            connection = try JetStreamConnection(connectionOptions)
        } catch {
            throw CLIError.failure(
                "\(error); check that a server of --nats answers, and give what it requires: --tls-ca for its certificate, "
                    + "--tls-cert and --tls-key when it asks for one, --creds or user:password@ in the URL")
        }
        let store = try context.openStore(creatingIfMissing: true)
        defer { store.close() }
        let relay = StreamRelay(store: store, connection: connection, keyring: keyring, options: options)
        let metrics = try metricsOptions.start(store)
        defer { metrics?.stop() }
        if let metrics { RelayMetrics.register(relay.statistics, in: metrics.registry) }
        let sessions = SessionContext()
        StopSignals.install(sessions) { number in
            metrics?.endpoint.set(.stopping)
            logEvent("signal.stop", "signal \(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
        }
        let keyFile = snapshotKeyFile
        ReloadSignal.install { ProcessLog.record(reload(relay, keyFile: keyFile)) }
        let started = ContinuousClock.now
        let reporter = RelayReporter(statistics: relay.statistics, context: sessions)
        defer { reporter.stop() }
        let maintainer = maintenance.start(store, metrics: metrics?.maintenance)
        defer { maintainer?.stop() }
        do {
            try relay.run(context: sessions, log: { ProcessLog.record($0) }, ready: { metrics?.endpoint.set(.ready) })
        } catch {
            switch error {
            case .snapshotRequired:
                logEvent("relay.snapshotRequired", "\(error)", .error)
                return ExitCode.snapshotRequired
            case .unsuitableStream, .invalidMessage, .cardBeyondKeyWindow, .store, .stream, .sync, .key:
                // Each description says what failed and what to do.
                throw CLIError.failure("\(error)")
            }
        }
        let counts = relay.statistics.current
        let elapsed = ContinuousClock.now - started
        let output = Output(
            stream: options.stream.name, counts: counts,
            milliseconds: elapsed.wholeMilliseconds)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print(
            "published \(counted(counts.published, "event")) (\(counts.duplicatesPublished) already in the stream), "
                + "received \(counted(counts.received, "message")) (\(counted(counts.applied, "new event"))) through sequence \(counts.streamPosition)")
        return ExitCode.success
    }

    /// Reads the `--key-file` of `--snapshot-from` again, for the pulls
    /// that start from now on; the line to log. The stream key and the
    /// NATS files are read only at start (docs/OPERATIONS.md "Reloading on
    /// SIGHUP" says why).
    private static func reload(_ relay: StreamRelay, keyFile: String?) -> LogRecord {
        let others = "--stream-key and the NATS credentials and TLS files are read only at start"
        guard let keyFile else { return LogRecord(.info, "relay.reload", "signal SIGHUP: nothing to reload: no --key-file; \(others)") }
        do {
            relay.replaceSnapshotKey(with: try SyncKey.load(from: keyFile))
        } catch {
            return LogRecord(.warning, "relay.reload", "signal SIGHUP: could not reload --key-file, keeping the key it had: \(error)")
        }
        return LogRecord(.info, "relay.reload", "signal SIGHUP: reloaded --key-file \(keyFile) for pulls from --snapshot-from; \(others)")
    }

    /// A name JetStream takes as one subject token or stream name.
    private static func token(_ text: String, _ option: String) throws -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        guard !text.isEmpty, text.count <= 64, text.allSatisfy(allowed.contains) else {
            throw CLIError.invalidInput("\(option) '\(text)' must be 1 to 64 letters, digits, '-' or '_'")
        }
        return text
    }
}
