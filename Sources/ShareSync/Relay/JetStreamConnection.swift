internal import CNATS
import Foundation
import SharePrimitives

/// A connection to a NATS server or cluster, with its JetStream context,
/// through the official NATS C client (libnats). ShareLog implements no
/// NATS protocol itself.
///
/// The client reconnects by itself, to any server of `servers`, for as
/// long as the connection lives; calls made while it is away fail with a
/// `JetStreamError` and the caller retries. One publish batch is in flight
/// at a time: a second `publish` waits for the first.
///
/// `@unchecked Sendable`: its two C objects are thread-safe (nats.c) and
/// live from `init` to `deinit`; its Swift state is `Sendable`.
public final class JetStreamConnection: @unchecked Sendable {
    /// How to reach and authenticate to the cluster.
    public struct Options: Sendable {
        /// `nats://host:port` or `tls://host:port` URLs; the client picks
        /// among them and fails over between them. A URL may carry a user
        /// and password or a token (`tls://user:password@host:port`,
        /// `tls://token@host:port`); error messages show it as `***`.
        public var servers: [String]
        /// Shown to the server's monitoring (`connz`).
        public var name = "sharelog-relay"
        /// A `.creds` file (user JWT and NKey seed) for a decentralized-auth cluster.
        public var credentialsFile: String?
        /// PEM files: the CA that signed the servers' certificates, and this
        /// client's certificate and key for mutual TLS. Any of them turns TLS on.
        public var tlsCAFile: String?
        public var tlsCertificateFile: String?
        public var tlsKeyFile: String?
        /// How long one JetStream API request may take.
        public var requestTimeout = Duration.seconds(5)

        public init(servers: [String]) { self.servers = servers }
    }

    let connection: OpaquePointer
    let context: OpaquePointer
    private let tally: PublishTally
    /// Guards no Swift value: held for a whole `publish`, it keeps the
    /// context's asynchronous publishing and `tally` to one batch.
    private let publishing = Locked(())

    /// Connects to the first server of `options.servers` that answers.
    ///
    /// - Throws: `JetStreamError` when no server answers within the connect
    ///   timeout (2 s each), or a credentials or TLS file cannot be read.
    public init(_ options: Options) throws(JetStreamError) {
        precondition(!options.servers.isEmpty, "a connection needs at least one server URL")
        var natsOptions: OpaquePointer?
        try check(natsOptions_Create(&natsOptions), "create NATS options")
        defer { natsOptions_Destroy(natsOptions) }
        let servers = options.servers.map { strdup($0) }
        defer { servers.forEach { free($0) } }
        var serverPointers = servers.map { UnsafePointer($0) }
        let shown = options.servers.map(Self.withoutSecrets).joined(separator: ",")
        try check(natsOptions_SetServers(natsOptions, &serverPointers, Int32(servers.count)), "set the NATS server URLs \(shown)")
        try check(natsOptions_SetName(natsOptions, options.name), "set the connection name")
        try check(natsOptions_SetTimeout(natsOptions, 2_000), "set the connect timeout")
        // Reconnect forever, every 250 ms: a relay outlives server restarts.
        try check(natsOptions_SetMaxReconnect(natsOptions, -1), "set unlimited reconnects")
        try check(natsOptions_SetReconnectWait(natsOptions, 250), "set the reconnect wait")
        if let file = options.credentialsFile {
            try check(natsOptions_SetUserCredentialsFromFiles(natsOptions, file, nil), "read the credentials file \(file)")
        }
        if options.tlsCAFile != nil || options.tlsCertificateFile != nil || options.tlsKeyFile != nil {
            try check(natsOptions_SetSecure(natsOptions, true), "turn TLS on")
            if let ca = options.tlsCAFile {
                try check(natsOptions_LoadCATrustedCertificates(natsOptions, ca), "read the TLS CA file \(ca)")
            }
            if let certificate = options.tlsCertificateFile, let key = options.tlsKeyFile {
                try check(natsOptions_LoadCertificatesChain(natsOptions, certificate, key), "read the TLS certificate \(certificate) and key \(key)")
            }
        }
        var connection: OpaquePointer?
        try check(natsConnection_Connect(&connection, natsOptions), "connect to \(shown)")
        tally = PublishTally()
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = options.requestTimeout.millisecondsToWait
        jsOptions.PublishAsync.MaxPending = 4096
        jsOptions.PublishAsync.AckHandler = publishAcknowledged
        jsOptions.PublishAsync.AckHandlerClosure = Unmanaged.passUnretained(tally).toOpaque()
        var context: OpaquePointer?
        let status = natsConnection_JetStream(&context, connection, &jsOptions)
        guard status == NATS_OK, let context, let connection else {
            natsConnection_Destroy(connection)
            throw JetStreamError("open the JetStream context", status: status)
        }
        self.connection = connection
        self.context = context
    }

    /// `url` with the password or token of its user part replaced by `***`.
    static func withoutSecrets(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        let userPart = url[scheme.upperBound..<at]
        let user = userPart.firstIndex(of: ":").map { userPart[..<$0] + ":" } ?? ""
        return url[..<scheme.upperBound] + user + "***" + url[at...]
    }

    deinit {
        jsCtx_Destroy(context)
        natsConnection_Destroy(connection)
    }

    /// The stream's configuration and state, or nil when there is no such stream.
    public func streamInfo(named name: String) throws(JetStreamError) -> StreamInfo? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetStreamInfo(&info, context, name, nil, &code)
        defer { jsStreamInfo_Destroy(info) }
        if status == NATS_NOT_FOUND || code.rawValue == 10059 { return nil }
        try check(status, "read stream \(name)", code: code)
        guard let info else { throw JetStreamError("read stream \(name)", status: NATS_ERR) }
        return StreamInfo(info.pointee)
    }

    /// Creates the stream `settings` describe, file-backed, keeping
    /// messages until `maxAge` (limits retention, oldest discarded first).
    public func createStream(_ settings: StreamSettings) throws(JetStreamError) -> StreamInfo {
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let name = strdup(settings.name), subject = strdup(settings.allSubjects)
        defer { free(name); free(subject) }
        var subjects: [UnsafePointer<CChar>?] = [UnsafePointer(subject)]
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = subjects.withUnsafeMutableBufferPointer { subjectList in
            config.Name = UnsafePointer(name)
            config.Subjects = subjectList.baseAddress
            config.SubjectsLen = 1
            config.Storage = js_FileStorage
            config.Retention = js_LimitsPolicy
            config.Discard = js_DiscardOld
            config.MaxAge = settings.maxAge.wholeNanoseconds
            config.Replicas = Int64(settings.replicas)
            config.Duplicates = settings.duplicateWindow.wholeNanoseconds
            return js_AddStream(&info, context, &config, nil, &code)
        }
        defer { jsStreamInfo_Destroy(info) }
        try check(status, "create stream \(settings.name) on \(settings.allSubjects) with \(settings.replicas) replicas", code: code)
        guard let info else { throw JetStreamError("create stream \(settings.name)", status: NATS_ERR) }
        return StreamInfo(info.pointee)
    }

    /// Removes every message of the stream (an operator's act; the tests
    /// use it to make a replica's cursor fall behind the stream).
    public func purgeStream(named name: String) throws(JetStreamError) {
        var code = jsErrCode(rawValue: 0)
        try check(js_PurgeStream(context, name, nil, &code), "purge stream \(name)", code: code)
    }

    /// Publishes `messages` in order without waiting for each, then waits
    /// up to `timeout` until JetStream has acknowledged every one: stored,
    /// on a majority of the stream's replicas, or recognised as a duplicate
    /// of a message it holds.
    ///
    /// - Returns: how many JetStream called duplicates.
    /// - Throws: `JetStreamError` when any publish failed or was not
    ///   acknowledged in time. Some of the batch may be stored then; the
    ///   caller publishes the whole batch again, and the message ids make
    ///   the stream keep one copy of each.
    public func publish(_ messages: [OutgoingMessage], timeout: Duration) throws(JetStreamError) -> Int {
        try publishing.withLock { _ throws(JetStreamError) -> Int in try publishBatch(messages, timeout: timeout) }
    }

    /// `publish`'s work, under `publishing`.
    private func publishBatch(_ messages: [OutgoingMessage], timeout: Duration) throws(JetStreamError) -> Int {
        tally.reset()
        for message in messages {
            var msg: OpaquePointer?
            try check(
                message.body.withUnsafeBufferPointer { natsMsg_Create(&msg, message.subject, nil, $0.baseAddress, Int32($0.count)) },
                "make a message for \(message.subject)")
            // No `MaxWait` per message: libnats (3.4) would keep a deadline
            // for each one after its acknowledgement and wake a timer thread
            // for every one of them when it passes, `timeout` later, long
            // after the batch is done (an idle relay's CPU, BENCHMARKS.md).
            // The batch has one deadline, in `js_PublishAsyncComplete` below.
            var options = jsPubOptions()
            jsPubOptions_Init(&options)
            let status = message.messageID.withCString { id in
                options.MsgId = id
                return js_PublishMsgAsync(context, &msg, &options)
            }
            natsMsg_Destroy(msg)  // nil once the library took it
            guard status == NATS_OK else {
                abandonPending()
                throw JetStreamError("publish to \(message.subject)", status: status)
            }
        }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = timeout.millisecondsToWait
        let completed = js_PublishAsyncComplete(context, &options)
        if completed != NATS_OK {
            abandonPending()
            throw JetStreamError("wait for JetStream to acknowledge \(messages.count) messages", status: completed)
        }
        let outcome = tally.reset()
        if let failure = outcome.failure {
            throw JetStreamError("publish \(messages.count) messages: \(failure.text)", status: failure.status, code: failure.code)
        }
        guard outcome.acknowledged == messages.count else {
            throw JetStreamError("publish \(messages.count) messages: \(outcome.acknowledged) acknowledged", status: NATS_ERR)
        }
        return outcome.duplicates
    }

    /// Takes back the messages of a failed batch still waiting for their
    /// acknowledgement, so that a late one cannot count toward the next batch.
    private func abandonPending() {
        var pending = natsMsgList()
        if js_PublishAsyncGetPendingList(&pending, context) == NATS_OK { natsMsgList_Destroy(&pending) }
        tally.reset()
    }
}

/// The C callback libnats calls for each asynchronously published message,
/// on its own thread: counts the outcome in the connection's tally.
private func publishAcknowledged(
    _ context: OpaquePointer?, _ message: OpaquePointer?, _ ack: UnsafeMutablePointer<jsPubAck>?,
    _ failure: UnsafeMutablePointer<jsPubAckErr>?, _ closure: UnsafeMutableRawPointer?
) {
    defer { natsMsg_Destroy(message) }
    guard let closure else { return }
    let tally = Unmanaged<PublishTally>.fromOpaque(closure).takeUnretainedValue()
    if let ack {
        tally.acknowledged(duplicate: ack.pointee.Duplicate)
    } else if let failure {
        let text = failure.pointee.ErrText.map { String(cString: $0) } ?? String(cString: natsStatus_GetText(failure.pointee.Err))
        tally.failed(PublishTally.Failure(status: failure.pointee.Err, code: failure.pointee.ErrCode, text: text))
    }
}
