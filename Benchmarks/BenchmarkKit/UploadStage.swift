import Foundation
import LMDB
import ShareHTTP
import ShareLog

/// The gateway of the upload workload and its files: the card pool as
/// files (`cards/I.vcf`, card `I` of the deck), a bearer token in the
/// gateway's store and its text in `token.txt`, `wrk`'s Lua script, and
/// `sharelog-bench http --write-api` serving the store on the server
/// cores. `stop()` (or dropping it) stops the gateway.
final class UploadStage {
    let directory: String
    let script: String
    let cards: String
    let tokenFile: String
    let poolSize: Int
    let storePath: String
    private let gateway: PeerProcess
    let port: UInt16

    /// Writes the files, adds the token to the store at `storePath`
    /// (made if missing), and starts the gateway with `threads` threads.
    init(context: BenchContext, storePath: String, directory: String, deck: CardDeck, threads: Int, pinning: CPUPinning) throws {
        self.directory = directory
        self.storePath = storePath
        cards = (directory as NSString).appendingPathComponent("cards")
        script = (directory as NSString).appendingPathComponent("upload.lua")
        tokenFile = (directory as NSString).appendingPathComponent("token.txt")
        poolSize = deck.cards.count
        try FileManager.default.createDirectory(atPath: cards, withIntermediateDirectories: true)
        for (index, card) in deck.cards.enumerated() {
            let path = (cards as NSString).appendingPathComponent("\(index).vcf")
            guard FileManager.default.createFile(atPath: path, contents: Data(card)) else { throw BenchError.io("writing \(path) failed") }
        }
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)

        let token = BearerToken.generate()
        let store = try ShareStore.open(at: storePath, creatingIfMissing: true, options: SyncPeer.options(now: SyncBench.now))
        try store.addToken(StoredToken(
            id: token.id, name: "bench", scopes: .all, createdAt: Timestamp(milliseconds: SyncBench.now), expiresAt: nil,
            secretHash: token.secretHash))
        store.close()
        try (token.text + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)

        let arguments = [
            context.executables.bench, "http", "--store", storePath, "--now", String(SyncBench.now),
            "--threads", String(threads), "--access-log", "/dev/null", "--write-api",
        ]
        let command = pinning.command(arguments, on: pinning.server)
        gateway = try PeerProcess(bench: command[0], Array(command.dropFirst()), what: "the upload gateway")
        let line = try gateway.nextLine(within: .seconds(30))
        guard line.hasPrefix(HTTPPeer.portPrefix), let port = UInt16(line.dropFirst(HTTPPeer.portPrefix.count)) else {
            throw BenchError.process("the upload gateway said '\(line)' instead of its port")
        }
        self.port = port
    }

    deinit { stop() }

    func stop() { gateway.stop() }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The gateway's process, whose CPU time the rows read.
    var processes: [pid_t] { [gateway.pid] }

    /// Uploads through `wrk` for `seconds` with `clients` connections, each
    /// request a card of the pool in turn under a key no other request of
    /// the stage has (`tag`, the thread and a counter).
    ///
    /// - Throws: `BenchError.mismatch` when any answer was not 201 or a
    ///   socket failed: then the rate would not be of uploads.
    func upload(clients: Int, seconds: Int, tag: String, pinning: CPUPinning) throws -> WrkRun {
        let load = WrkRun.Load(url: url + "/v1/shares", connections: clients, threads: pinning.clientThreads, seconds: seconds, close: false)
        let run = try WrkRun.run(
            load, script: script, headers: [],
            scriptArguments: { [self.cards, String(self.poolSize), String($0), tag, self.tokenFile] },
            command: { pinning.command($0, on: pinning.client) })
        guard run.ok == run.requests, run.socketErrors == 0, run.requests > 0 else {
            throw BenchError.mismatch(
                "uploads to the gateway: \(run.requests) answered, \(run.requests - run.ok) not 201, \(run.socketErrors) socket errors")
        }
        return run
    }

    /// The gateway store's last LMDB transaction id: its commits so far
    /// (read from this process; the gateway keeps writing meanwhile).
    func commitCount() throws -> Int {
        let environment = try Environment.open(at: storePath, databases: ShareStore.databaseNames, options: Environment.Options())
        defer { environment.close() }
        return environment.info.lastTransactionID
    }

    /// The shares in the gateway's store.
    func shares() throws -> Int {
        let store = try ShareStore.open(at: storePath, options: SyncPeer.options(now: SyncBench.now))
        defer { store.close() }
        return try store.stats().live
    }

    /// The Lua script. Arguments after `--`: the cards' directory, the
    /// pool's size, the number of `wrk` threads, the run's tag, and the
    /// token's file. Each thread starts at its own place in the pool.
    /// The headers are all here: a table given to `wrk.format` replaces
    /// the command line's `-H` ones. No `response` function: `wrk` counts
    /// non-2xx answers itself.
    static let script = """
        -- sharelog-bench (Benchmarks/BenchmarkKit/UploadStage.swift): POST /v1/shares
        -- with each card of the pool in turn, every request under a new Idempotency-Key.
        local bodies = {}
        local index = 1
        local counter = 0
        local tag = ""
        local token = ""

        function init(args)
            for i = 0, tonumber(args[2]) - 1 do
                local file = assert(io.open(args[1] .. "/" .. i .. ".vcf", "rb"))
                bodies[#bodies + 1] = file:read("*a")
                file:close()
            end
            local file = assert(io.open(args[5], "r"))
            token = file:read("*l")
            file:close()
            tag = args[4]
            local stride = math.floor(#bodies / tonumber(args[3]))
            index = ((number - 1) * stride) % #bodies + 1
        end

        function request()
            counter = counter + 1
            local body = bodies[index]
            index = index % #bodies + 1
            return wrk.format("POST", "/v1/shares", {
                ["Authorization"] = "Bearer " .. token,
                ["Content-Type"] = "text/vcard",
                ["Idempotency-Key"] = tag .. "-" .. number .. "-" .. counter,
            }, body)
        end

        """ + WrkRun.summary
}
