internal import CMicroHTTPD
import Foundation
import Synchronization

/// One libmicrohttpd daemon of an `HTTPServer`: its epoll threads, its
/// connections and, over TLS, one certificate. It accepts on a duplicate
/// of the server's listening socket (`dup(2)`) that is its own, so the
/// library may close that descriptor (it does when its start fails)
/// without closing the socket under the server or under another daemon.
///
/// Its life: started by `init`; `quiesce()` stops its accepting and closes
/// its descriptor, while the connections it holds go on; `stop()` ends
/// them and frees what the library read. A server holds one daemon that
/// accepts, and while a certificate is being replaced, older ones that
/// only finish their connections (`HTTPServer.replaceCertificate`).
///
/// Thread-safe: `quiesce` and `stop` each act once, whoever calls them.
final class HTTPDaemon: Sendable {
    /// What its callbacks reach: the server's core, its own counts.
    let context: DaemonContext
    /// The library's daemon, as its address (an opaque pointer, which is
    /// not Sendable; the daemon itself is thread-safe).
    private let handle: UInt
    /// Its duplicate of the listening socket; -1 once `quiesce` closed it.
    private let listening: Atomic<Int32>
    /// C strings the library reads (the certificate, the priorities),
    /// freed after it stops.
    private let cStrings: [UInt]
    /// The private key's C string and its length: zeroed, then freed,
    /// after the library stops.
    private let keyString: (address: UInt, count: Int)?
    /// Where the library's messages go (`sharelog_mhd_logger`), freed after it stops.
    private let logger: UInt
    private let stopped = Atomic<Bool>(false)

    /// Starts a daemon that accepts on a duplicate of `listeningDescriptor`
    /// with `configuration`'s limits, over TLS with `tls` when given, for
    /// `core`.
    ///
    /// - Throws: `HTTPServerError.listen` when the descriptor cannot be
    ///   duplicated, `.start` when libmicrohttpd refuses to start (its
    ///   reason, such as GnuTLS's for a pair it cannot use, is in the log
    ///   already). Nothing of the server changes then.
    init(
        configuration: HTTPServerConfiguration, tls: HTTPServerConfiguration.TLSCredentials?, listeningDescriptor: Int32, core: ServerCore
    ) throws(HTTPServerError) {
        let context = DaemonContext(core: core)
        let duplicate = fcntl(listeningDescriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw .listen(.system(operation: "fcntl(F_DUPFD_CLOEXEC) of the listening socket", errno: errno)) }
        let contextAddress = Unmanaged.passUnretained(context).toOpaque()
        var strings: [UnsafeMutablePointer<CChar>] = []
        func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
            let pointer = strdup(String(decoding: bytes, as: UTF8.self))!
            strings.append(pointer)
            return pointer
        }
        var flags = UInt32(
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_TURBO.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue)
        var options: [MHD_OptionItem] = [
            Self.option(.LISTEN_SOCKET, Int(duplicate)),
            Self.option(.CONNECTION_LIMIT, configuration.maxConnections),
            Self.option(.CONNECTION_TIMEOUT, Int(max(1, configuration.idleTimeout.components.seconds))),
            Self.option(.CONNECTION_MEMORY_LIMIT, configuration.memoryPerConnection),
            Self.option(.URI_LOG_CALLBACK, unsafeBitCast(HTTPServerCallbacks.requestLine, to: Int.self), contextAddress),
            Self.option(.NOTIFY_COMPLETED, unsafeBitCast(HTTPServerCallbacks.completed, to: Int.self), contextAddress),
            Self.option(.NOTIFY_CONNECTION, unsafeBitCast(HTTPServerCallbacks.connection, to: Int.self), contextAddress),
        ]
        if case .tcp = configuration.endpoint {
            options.append(Self.option(.PER_IP_CONNECTION_LIMIT, configuration.maxConnectionsPerAddress))
        }
        if configuration.threads > 1 { options.append(Self.option(.THREAD_POOL_SIZE, configuration.threads)) }
        var key: (pointer: UnsafeMutablePointer<CChar>, count: Int)?
        if let tls {
            flags |= UInt32(MHD_USE_TLS.rawValue)
            let count = tls.key.count
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
            tls.key.withUnsafeBytes { bytes in UnsafeMutableRawPointer(pointer).copyMemory(from: bytes.baseAddress!, byteCount: count) }
            pointer[count] = 0
            key = (pointer, count)
            options.append(Self.option(.HTTPS_MEM_CERT, 0, cString(tls.certificatePEM)))
            options.append(Self.option(.HTTPS_MEM_KEY, 0, pointer))
            options.append(Self.option(.HTTPS_PRIORITIES, 0, cString(Array("NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2".utf8))))
        }
        options.append(Self.option(.END, 0))
        let logger = UnsafeMutablePointer<sharelog_mhd_logger>.allocate(capacity: 1)
        logger.initialize(to: sharelog_mhd_logger(callback: HTTPServerCallbacks.libraryLog, cls: contextAddress))
        let started = options.withUnsafeMutableBufferPointer {
            sharelog_mhd_start(flags, HTTPServerCallbacks.request, contextAddress, $0.baseAddress, logger)
        }
        guard let started else {
            // The library closed `duplicate` (libmicrohttpd 0.9.75 closes a
            // listening socket it was given when its start fails): closing
            // it again could close a descriptor another thread just opened.
            strings.forEach { free($0) }
            if let key { Self.erase(key.pointer, key.count) }
            logger.deallocate()
            throw .start("see the messages above (a bad certificate or key, or too few file descriptors)")
        }
        self.context = context
        handle = UInt(bitPattern: started)
        listening = Atomic(duplicate)
        cStrings = strings.map { UInt(bitPattern: $0) }
        keyString = key.map { (UInt(bitPattern: $0.pointer), $0.count) }
        self.logger = UInt(bitPattern: logger)
    }

    deinit {
        quiesce()
        stop()
    }

    /// Stops accepting (`MHD_quiesce_daemon`) and closes this daemon's
    /// descriptor of the listening socket; its connections go on. Once.
    func quiesce() {
        let descriptor = listening.exchange(-1, ordering: .acquiringAndReleasing)
        guard descriptor >= 0, let daemon = OpaquePointer(bitPattern: handle) else { return }
        _ = MHD_quiesce_daemon(daemon)
        close(descriptor)
    }

    /// Waits for the requests answered off the library's threads, then
    /// closes every connection of the daemon, ends its threads, and frees
    /// what the library read. Call `quiesce` first: a daemon stopped while
    /// it accepts would shut the listening socket down for every daemon
    /// that shares it. Once.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing), let daemon = OpaquePointer(bitPattern: handle) else { return }
        precondition(listening.load(ordering: .acquiring) < 0, "an HTTP daemon is quiesced before it stops")
        // The library must not stop with a connection suspended: every
        // request answered off its threads resumes its connection first.
        context.offThread.drain()
        MHD_stop_daemon(daemon)
        cStrings.forEach { free(UnsafeMutableRawPointer(bitPattern: $0)) }
        if let keyString, let pointer = UnsafeMutablePointer<CChar>(bitPattern: keyString.address) { Self.erase(pointer, keyString.count) }
        UnsafeMutablePointer<sharelog_mhd_logger>(bitPattern: logger)?.deallocate()
    }

    /// Whether `stop()` has run.
    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Zeroes the key's `count` bytes (`explicit_bzero`, which the compiler
    /// may not remove) and frees them.
    private static func erase(_ pointer: UnsafeMutablePointer<CChar>, _ count: Int) {
        explicit_bzero(pointer, count)
        pointer.deallocate()
    }

    private static func option(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutableRawPointer? = nil) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: value, ptr_value: pointer)
    }

    private static func option(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutablePointer<CChar>) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: value, ptr_value: UnsafeMutableRawPointer(pointer))
    }
}
