internal import CMicroHTTPD
import Foundation
import ShareLog
import SharePrimitives
import ShareSync

/// The gateway on the network: GNU libmicrohttpd parses HTTP and runs the
/// connections (epoll loops on `threads` threads, connection limits in all
/// and per address, a memory cap per connection, TLS through GnuTLS), and
/// hands each request to the `Gateway` (docs/HTTP.md). Nothing here parses
/// HTTP.
///
/// Started by `init`; `stop(grace:)` refuses new connections, lets the
/// requests being answered finish, then closes everything.
/// `replaceCertificate(with:)` gives new connections another certificate
/// while the ones open finish under the old one.
///
/// Thread-safe. libmicrohttpd calls the gateway from its own threads.
public final class HTTPServer: Sendable {
    /// Where the server listens: the configured endpoint, with the port
    /// actually bound for `tcp:HOST:0`.
    public let endpoint: Endpoint
    private let configuration: HTTPServerConfiguration
    private let core: ServerCore
    /// The listening socket, waiting for the thread that calls `stop`: it
    /// is handed to that thread, which closes it. Each daemon accepts on a
    /// duplicate of its own.
    private let listener: Handoff<Listener>
    /// The listener's descriptor, to duplicate for a new daemon; valid
    /// until `stop`, which marks `daemons` stopped before it closes it.
    private let listeningDescriptor: Int32
    /// The daemon that accepts, and older ones that finish their connections.
    private let daemons: Locked<Daemons>

    /// The daemons of a server.
    private struct Daemons {
        /// The one that accepts; nil once stopped.
        var current: HTTPDaemon?
        /// Quiesced by a certificate's replacement, finishing their
        /// connections; each is stopped by whoever takes it out of here.
        var retiring: [HTTPDaemon] = []
        var stopped = false
    }

    /// Starts serving `responder` (a `Gateway`, or a `MetricsEndpoint`) as
    /// `configuration` says; `log` receives each record the responder gives
    /// for an answer (the gateway's access log) and libmicrohttpd's own
    /// messages (`http.library`, warnings). It is called on the
    /// connections' threads and must not block (`LogQueue`).
    public init(serving responder: any HTTPResponder, configuration: HTTPServerConfiguration, log: @escaping @Sendable (LogRecord) -> Void)
        throws(HTTPServerError)
    {
        switch configuration.endpoint {
        case .tcp, .unix: break
        default: throw .unsupportedEndpoint(configuration.endpoint)
        }
        if configuration.tls != nil, MHD_is_feature_supported(.FEATURE_TLS) != .YES { throw .noTLS }
        let listener: Listener
        do { listener = try Listener(listeningOn: configuration.endpoint, backlog: 1024) } catch { throw .listen(error) }
        endpoint = listener.endpoint
        self.configuration = configuration
        core = ServerCore(responder: responder, log: log, headerTimeout: configuration.headerTimeout)
        Self.raiseDescriptorLimit(for: configuration.maxConnections)
        let daemon: HTTPDaemon
        do {
            daemon = try HTTPDaemon(configuration: configuration, tls: configuration.tls, listeningDescriptor: listener.listeningDescriptor, core: core)
        } catch {
            listener.close()
            throw error
        }
        listeningDescriptor = listener.listeningDescriptor
        daemons = Locked(Daemons(current: daemon))
        self.listener = Handoff(listener)
        core.watch.start()
    }

    deinit { stop(grace: .zero) }

    /// Serves every connection accepted from now on with `credentials`,
    /// without closing any: a new daemon starts on the same listening
    /// socket with them, and only then does the one before stop accepting.
    /// The connections it holds finish there, under the old certificate;
    /// its answers from then on carry `Connection: close`, so a client's
    /// next request comes over a new connection. It is stopped once its
    /// last connection closed, or at the latest when the idle and header
    /// timeouts and 10 seconds more have passed (so a kept-alive
    /// connection is closed only as it would have been anyway).
    ///
    /// - Throws: `HTTPServerError.start` when libmicrohttpd cannot start
    ///   with `credentials` (GnuTLS's reason is in the log), `.plainHTTP`
    ///   for a server started without TLS, `.stopped` after `stop`. The
    ///   server then goes on as it was, with the certificate it had.
    public func replaceCertificate(with credentials: HTTPServerConfiguration.TLSCredentials) throws(HTTPServerError) {
        guard configuration.tls != nil else { throw .plainHTTP }
        let old = try daemons.withLock { daemons throws(HTTPServerError) -> HTTPDaemon in
            guard !daemons.stopped, let old = daemons.current else { throw .stopped }
            let new = try HTTPDaemon(configuration: configuration, tls: credentials, listeningDescriptor: listeningDescriptor, core: core)
            // The new daemon accepts already: connections wait for neither.
            old.context.retiring.store(true, ordering: .relaxed)
            old.quiesce()
            daemons.current = new
            daemons.retiring.append(old)
            return old
        }
        let daemons = daemons
        let patience = max(configuration.idleTimeout, configuration.headerTimeout) + .seconds(10)
        let thread = Thread {
            let deadline = ContinuousClock.now + patience
            func stillMine() -> Bool { daemons.withLock { $0.retiring.contains { $0 === old } } }
            while old.context.connections.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline, stillMine() { usleep(20_000) }
            let taken = daemons.withLock { daemons in
                guard let index = daemons.retiring.firstIndex(where: { $0 === old }) else { return false }
                daemons.retiring.remove(at: index)
                return true
            }
            if taken { old.stop() }
        }
        thread.name = "sharelog-http-retire"
        thread.start()
    }

    /// Stops serving: new connections are refused at once; requests being
    /// answered get up to `grace` to finish; then every connection closes.
    /// Answers given meanwhile carry `Connection: close`. Idempotent.
    public func stop(grace: Duration = .seconds(10)) {
        let all = daemons.withLock { daemons -> [HTTPDaemon]? in
            guard !daemons.stopped else { return nil }
            daemons.stopped = true
            defer {
                daemons.current = nil
                daemons.retiring = []
            }
            return (daemons.current.map { [$0] } ?? []) + daemons.retiring
        }
        guard let all else { return }
        core.stopping.store(true, ordering: .relaxed)
        // Every descriptor of the listening socket closes here (the
        // retiring daemons closed theirs already), so connections are
        // refused from now on.
        all.forEach { $0.quiesce() }
        // Once: only the first stop gets here.
        let listener = listener.take()
        listener.adoptOnCurrentThread()
        listener.close()
        let deadline = ContinuousClock.now + grace
        while core.inFlight.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline { usleep(5_000) }
        all.forEach { $0.stop() }
        core.watch.stop()
    }

    /// Counters for tests and the benchmark.
    public var statistics: HTTPServerStatistics {
        HTTPServerStatistics(
            answered: core.answered.load(ordering: .relaxed), inFlight: core.inFlight.load(ordering: .relaxed),
            liveRequests: core.liveRequests.load(ordering: .relaxed), cutOffSlowHeaders: core.watch.cutOff.load(ordering: .relaxed))
    }

    /// Each connection holds a descriptor: lifts the soft limit toward the
    /// hard one so `maxConnections` can be reached.
    private static func raiseDescriptorLimit(for connections: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(connections + 256)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
