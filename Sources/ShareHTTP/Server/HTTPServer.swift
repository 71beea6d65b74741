internal import CMicroHTTPD
import Foundation
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
///
/// Thread-safe. libmicrohttpd calls the gateway from its own threads.
public final class HTTPServer: Sendable {
    /// Where the server listens: the configured endpoint, with the port
    /// actually bound for `tcp:HOST:0`.
    public let endpoint: Endpoint
    private let core: ServerCore
    /// The daemon, as its address (libmicrohttpd's handle is an opaque
    /// pointer, which is not Sendable; the daemon itself is thread-safe).
    private let daemon: UInt
    /// The listening socket, which libmicrohttpd borrows, waiting for the
    /// thread that calls `stop`: it is handed to that thread, which closes it.
    private let listener: Handoff<Listener>
    /// C strings libmicrohttpd reads while it runs: the PEM files and the
    /// TLS priorities, freed after the daemon stops.
    private let cStrings: [UInt]
    /// The `sharelog_mhd_logger` libmicrohttpd's messages go through.
    private let logger: UInt
    private let stopped = Locked(false)

    /// Starts serving `responder` (a `Gateway`, or a `MetricsEndpoint`) as
    /// `configuration` says; `log` receives each line the responder gives
    /// for an answer (the gateway's access log) and libmicrohttpd's own
    /// messages.
    public init(serving responder: any HTTPResponder, configuration: HTTPServerConfiguration, log: @escaping @Sendable (String) -> Void)
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
        core = ServerCore(responder: responder, log: log, headerTimeout: configuration.headerTimeout)
        Self.raiseDescriptorLimit(for: configuration.maxConnections)

        var strings: [UnsafeMutablePointer<CChar>] = []
        func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
            let pointer = strdup(String(decoding: bytes, as: UTF8.self))!
            strings.append(pointer)
            return pointer
        }
        let coreAddress = Unmanaged.passUnretained(core).toOpaque()
        var flags = UInt32(MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue)
        var options: [MHD_OptionItem] = [
            Self.option(.LISTEN_SOCKET, Int(listener.listeningDescriptor)),
            Self.option(.CONNECTION_LIMIT, configuration.maxConnections),
            Self.option(.CONNECTION_TIMEOUT, Int(max(1, configuration.idleTimeout.components.seconds))),
            Self.option(.CONNECTION_MEMORY_LIMIT, configuration.memoryPerConnection),
            Self.option(.URI_LOG_CALLBACK, unsafeBitCast(HTTPServerCallbacks.requestLine, to: Int.self), coreAddress),
            Self.option(.NOTIFY_COMPLETED, unsafeBitCast(HTTPServerCallbacks.completed, to: Int.self), coreAddress),
            Self.option(.NOTIFY_CONNECTION, unsafeBitCast(HTTPServerCallbacks.connection, to: Int.self), coreAddress),
        ]
        if case .tcp = configuration.endpoint {
            options.append(Self.option(.PER_IP_CONNECTION_LIMIT, configuration.maxConnectionsPerAddress))
        }
        if configuration.threads > 1 { options.append(Self.option(.THREAD_POOL_SIZE, configuration.threads)) }
        if let tls = configuration.tls {
            flags |= UInt32(MHD_USE_TLS.rawValue)
            options.append(Self.option(.HTTPS_MEM_CERT, 0, cString(tls.certificatePEM)))
            options.append(Self.option(.HTTPS_MEM_KEY, 0, cString(tls.keyPEM)))
            options.append(Self.option(.HTTPS_PRIORITIES, 0, cString(Array("NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2".utf8))))
        }
        options.append(Self.option(.END, 0))
        cStrings = strings.map { UInt(bitPattern: $0) }
        let logger = UnsafeMutablePointer<sharelog_mhd_logger>.allocate(capacity: 1)
        logger.initialize(to: sharelog_mhd_logger(callback: HTTPServerCallbacks.libraryLog, cls: coreAddress))
        self.logger = UInt(bitPattern: logger)
        let started = options.withUnsafeMutableBufferPointer {
            sharelog_mhd_start(flags, HTTPServerCallbacks.request, coreAddress, $0.baseAddress, logger)
        }
        guard let started else {
            listener.close()
            strings.forEach { free($0) }
            logger.deallocate()
            throw .start("see the messages above (a bad certificate or key, or too few file descriptors)")
        }
        daemon = UInt(bitPattern: started)
        self.listener = Handoff(listener)
        core.watch.start()
    }

    deinit { stop(grace: .zero) }

    /// Stops serving: new connections are refused at once; requests being
    /// answered get up to `grace` to finish; then every connection closes.
    /// Answers given meanwhile carry `Connection: close`. Idempotent.
    public func stop(grace: Duration = .seconds(10)) {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first, let daemon = OpaquePointer(bitPattern: daemon) else { return }
        core.stopping.store(true, ordering: .relaxed)
        _ = MHD_quiesce_daemon(daemon)
        // Once: only the first stop gets here.
        let listener = listener.take()
        listener.adoptOnCurrentThread()
        listener.close()
        let deadline = ContinuousClock.now + grace
        while core.inFlight.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline { usleep(5_000) }
        MHD_stop_daemon(daemon)
        core.watch.stop()
        cStrings.forEach { free(UnsafeMutableRawPointer(bitPattern: $0)) }
        UnsafeMutablePointer<sharelog_mhd_logger>(bitPattern: logger)?.deallocate()
    }

    /// Counters for tests and the benchmark.
    public var statistics: HTTPServerStatistics {
        HTTPServerStatistics(
            answered: core.answered.load(ordering: .relaxed), inFlight: core.inFlight.load(ordering: .relaxed),
            liveRequests: core.liveRequests.load(ordering: .relaxed), cutOffSlowHeaders: core.watch.cutOff.load(ordering: .relaxed))
    }

    private static func option(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutableRawPointer? = nil) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: value, ptr_value: pointer)
    }

    private static func option(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutablePointer<CChar>) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: value, ptr_value: UnsafeMutableRawPointer(pointer))
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
