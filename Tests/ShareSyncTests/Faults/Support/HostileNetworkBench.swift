import Foundation
import Glibc
import SampleCards
import ShareLog
import Testing
import TestSupport
@testable import ShareSync

/// A main store of a few seeded shares, its sync key, and the well-behaved
/// clients that must be served while `HostileNetworkTests` attacks a real
/// `sharelog serve` on it: a main (`sharelog sync --pull`) and a clip
/// (`sharelog clip open LINK --connect unix:… --vcard`), each into a fresh
/// store of its own, so that what it gets can only have come from the
/// server in that very run.
///
/// Every count it expects is the test's own: the shares it seeded, the
/// cards it made from their indexes.
final class HostileNetworkBench {
    enum Transport: String, CaseIterable, Sendable {
        /// A keyed Unix socket: mains prove the key, clips need none.
        case unix
        /// TCP under TLS 1.3 with the key: mains only.
        case tcp
    }

    /// Shares seeded in the main store: one event each.
    static let shares = 6

    let directory = TemporaryDirectory("hostilenet")
    let main: SharelogCLI
    /// The link of seeded share `i`.
    let links: [String]
    let keyFile: String
    let key: SyncKey
    private var goodClients = 0

    init() throws {
        main = .forFaults(store: directory.appending("main"))
        links = try SeedStore.build(at: main.store) { store in try store.create(vCards: (0..<Self.shares).map(Self.card)).map(\.link) }
        keyFile = directory.appending("sync.key")
        _ = try main.run("keygen", keyFile).checked("sharelog keygen")
        key = try SyncKey.load(from: keyFile)
    }

    /// The card of seeded share `index`, made again from the seed.
    static func card(_ index: Int) -> [UInt8] { SampleCard.make(index: index) }

    /// The `--listen` of a Unix socket in the bench's directory.
    var unixListen: String { "unix:\(directory.appending("s"))" }

    /// `sharelog serve --listen listen --key-file K extra…` on the main
    /// store, through `launcher` (such as `prlimit`) when given.
    func serve(_ listen: String, _ extra: [String] = [], launcher: [String] = []) throws -> ServeProcess {
        let cli = SharelogCLI(store: main.store, now: main.now, timeout: main.timeout, launcher: launcher)
        return try ServeProcess(cli, listen: listen, extra: ["--key-file", keyFile] + extra)
    }

    /// The server's `serve` line's endpoint, parsed.
    static func endpoint(_ server: ServeProcess) throws -> Endpoint { try Endpoint(parsing: server.endpoint) }

    // MARK: The well-behaved clients

    /// A fresh store for the next good client.
    private func freshStore(_ label: String) -> SharelogCLI {
        goodClients += 1
        return .forFaults(store: directory.appending("good-\(label)-\(goodClients)"))
    }

    /// A well-behaved main: `sync --pull --key-file` into a fresh store. It
    /// must end with status 0 having applied `events`, every seeded event
    /// unless told otherwise. `tick`
    /// runs every 50 ms or so while it runs (for heartbeats of the test's
    /// own raw peers).
    func expectGoodMain(
        _ endpoint: String, _ label: String, events: Int = shares, tick: () throws -> Void = {}, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = freshStore("main")
        let result = try Self.run(store, ["sync", "--connect", endpoint, "--pull", "--key-file", keyFile, "--json"], tick: tick)
        #expect(result.status == 0, "\(label): the good main's sync failed: \(result.error)", sourceLocation: sourceLocation)
        guard result.status == 0 else { return }
        let json = (try? JSONSerialization.jsonObject(with: Data(result.output))) as? [String: Any] ?? [:]
        #expect(json["eventsApplied"] as? Int == events, "\(label): the good main applied \(json)", sourceLocation: sourceLocation)
        #expect(try store.eventCount() == events, "\(label): the good main's store", sourceLocation: sourceLocation)
    }

    /// A well-behaved clip: `clip open LINK --connect unix:… --vcard` of
    /// share `share` into a fresh store (which cannot answer from itself):
    /// status 0 and the card exactly as the seed made it.
    func expectGoodClip(
        _ endpoint: String, share: Int, _ label: String, tick: () throws -> Void = {}, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = freshStore("clip")
        let result = try Self.run(store, ["clip", "open", links[share], "--connect", endpoint, "--vcard"], tick: tick)
        #expect(result.status == 0, "\(label): the good clip failed: \(result.error)", sourceLocation: sourceLocation)
        #expect(result.output == Self.card(share), "\(label): the good clip printed \(result.output.count) bytes, not the card of share \(share)",
            sourceLocation: sourceLocation)
        #expect(!result.error.contains("unreachable"), "\(label): the good clip answered from its own store: \(result.error)", sourceLocation: sourceLocation)
    }

    /// Runs `sharelog arguments…` on `cli`'s store to its end, calling
    /// `tick` between reads of its output; killed, and a throw, after 90 s.
    static func run(
        _ cli: SharelogCLI, _ arguments: [String], timeout: Duration = .seconds(90), tick: () throws -> Void
    ) throws -> (status: Int32, output: [UInt8], error: String) {
        let process = try cli.start(arguments)
        let deadline = Deadline("sharelog \(arguments.prefix(2).joined(separator: " ")) ends", timeout: timeout)
        var output: [UInt8] = []
        while let chunk = process.readOutput(waitingAtMost: 50) {
            output += chunk
            try tick()
            if deadline.hasPassed {
                process.kill()
                break
            }
        }
        let outcome = try process.finish(timeout: .seconds(30))
        try deadline.check()
        let result = CLIResult(outcome)
        return (result.status, output + result.output, result.error)
    }

    // MARK: Raw frames

    /// A test replica id, `0000000d-…-NNNNNNNNNNNN`.
    static func replica(_ index: Int) -> ReplicaID {
        ReplicaID("0000000d-0000-4000-8000-" + String(format: "%012d", index))!
    }

    /// A hello of `role` (a clip asks for no direction), as bytes.
    static func hello(_ role: SyncRole, replica: ReplicaID, directions: SyncDirections = []) -> [UInt8] {
        FrameEncoder.encode(Message.hello(Message.Hello(
            versions: SyncProtocol.versions, role: role, directions: directions, replica: replica,
            epoch: Epoch("0000000d-0000-4000-8000-0000000000e1")!, nonce: HandshakeNonce(bytes: SyncKey.randomNonce())!)).frame)
    }

    /// `message` as the bytes of its frame.
    static func frame(_ message: Message) -> [UInt8] { FrameEncoder.encode(message.frame) }

    /// A frame header alone: `length` payload bytes declared, `type`, and
    /// the CRC-32 of the type byte and `payload` (the payload it claims;
    /// none of it is sent).
    static func header(length: Int, type: UInt8, claiming payload: [UInt8] = []) -> [UInt8] {
        let crc = ReferenceCRC32.of([type] + payload)
        return [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type]
            + [UInt8(crc >> 24 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// Whether the server has closed `channel` or sent on it: a connection
    /// it still holds open and silent is not readable.
    static func hasAnswered(_ channel: any ByteChannel) -> Bool {
        (try? channel.waitReadable(orWake: nil, deadline: .now)) != .timedOut
    }
}

/// `sharelog serve` started by hand with its standard error on a pipe of
/// 64 KiB that this side does not read (but for the `serving` line) until
/// `stop`: a log reader that fell behind. Not `Subprocess`, whose pipes
/// are 1 MiB and drained on every read of the test.
final class UnreadLogServer {
    let pid: pid_t
    private var errorDescriptor: Int32
    private(set) var log: [UInt8] = []
    private var waitStatus: Int32?

    /// Starts `sharelog --store … --now … serve arguments…` and reads its
    /// standard error only until it says it serves.
    init(_ cli: SharelogCLI, _ arguments: [String]) throws {
        var ends: [Int32] = [-1, -1]
        guard hostileNetworkPipe2(&ends, O_CLOEXEC) == 0 else { throw HarnessFailure.unexpected("pipe2: \(String(cString: strerror(errno)))") }
        // 64 KiB, Linux's default, said explicitly.
        _ = fcntl(ends[0], 1031 /* F_SETPIPE_SZ */, 65_536)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDERR_FILENO)
        let all = [SharelogCLI.executable, "--store", cli.store, "--now", cli.now, "serve"] + arguments
        let argv = all.map { strdup($0) } + [nil]
        let envp = SharelogCLI.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, SharelogCLI.executable, &actions, nil, argv, envp)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw HarnessFailure.unexpected("posix_spawn sharelog serve: \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        errorDescriptor = ends[0]
        _ = fcntl(errorDescriptor, F_SETFL, O_NONBLOCK)
        try Deadline.block(until: "sharelog serve says where it serves", timeout: .seconds(30), every: .milliseconds(5)) {
            _ = readAvailable(waitingAtMost: 5)
            guard isRunning else { throw HarnessFailure.endedEarly("sharelog serve", before: "it served", log: String(decoding: log, as: UTF8.self)) }
            return String(decoding: log, as: UTF8.self).contains("sharelog: serving ")
        }
    }

    deinit {
        if waitStatus == nil {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        if errorDescriptor >= 0 { close(errorDescriptor) }
    }

    var isRunning: Bool {
        guard waitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        waitStatus = status
        return false
    }

    /// Reads what the pipe holds; false at its end.
    @discardableResult
    private func readAvailable(waitingAtMost milliseconds: Int32) -> Bool {
        guard errorDescriptor >= 0 else { return false }
        var entry = pollfd(fd: errorDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return true }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { read(errorDescriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            log += buffer[..<count]
            return true
        }
        if count == 0 || (errno != EAGAIN && errno != EINTR) {
            close(errorDescriptor)
            errorDescriptor = -1
            return false
        }
        return true
    }

    /// SIGTERM, then reads its log to the end while it exits: its exit
    /// status (nil when a signal ended it). Throws when it has not exited
    /// after `timeout` (and kills it).
    func stop(timeout: Duration = .seconds(30)) throws -> Int32? {
        Glibc.kill(pid, SIGTERM)
        let deadline = Deadline("sharelog serve exits after SIGTERM", timeout: timeout)
        while true {
            let open = readAvailable(waitingAtMost: 20)
            guard open || isRunning else { break }
            if !open { Thread.sleep(forTimeInterval: 0.005) }
            if deadline.hasPassed {
                Glibc.kill(pid, SIGKILL)
                try deadline.check()
            }
        }
        let status = waitStatus ?? 0
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }
}

/// glibc's `pipe2(2)`, which the Glibc module does not export.
@_silgen_name("pipe2")
private func hostileNetworkPipe2(_ descriptors: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
