// A second process for the LMDB tests: LMDB is multi-process, and some of
// its failure modes (dead readers, another process growing the map, fork)
// only exist across processes. Each command prints one result line.
import CHeap
import CLMDB
import Foundation
import Glibc
import LMDB

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lmdb-probe: \(message)\n".utf8))
    exit(2)
}

/// Options with the idle read-transaction pool on (it is off by default).
let pooled: Environment.Options = {
    var options = Environment.Options()
    options.idleReadTransactions = 16
    return options
}()

func say(_ line: String) {
    FileHandle.standardOutput.write(Data("\(line)\n".utf8))
}

/// Writes (starting the writer thread), forks, and releases the environment
/// in the child, which must exit rather than wait for a writer thread that
/// fork did not copy.
func forkRelease(_ directory: String) throws -> String {
    let child: pid_t
    do {
        let env = try Environment.open(at: directory, databases: ["data"])
        let data = try env.database("data")
        try env.write { txn in try txn.put([1], forKey: [1], in: data) }
        child = fork()
        if child != 0 { return waitForChild(child, env: env) }
    }
    // The child: its reference was released at the end of the block.
    _exit(0)
}

func waitForChild(_ child: pid_t, env: Environment) -> String {
    var status: Int32 = 0, exited = false
    for _ in 0..<500 {
        if waitpid(child, &status, WNOHANG) == child {
            exited = true
            break
        }
        usleep(10_000)
    }
    if !exited {
        kill(child, SIGKILL)
        waitpid(child, &status, 0)
    }
    let parentReads = (try? env.read { _ in true }) ?? false
    return "child=\(exited ? "exited" : "hung") parent=\(parentReads ? "ok" : "broken")"
}

/// Leaves three idle read transactions, forks, and in the child tries a
/// read (which must be refused) and releases the environment, which must
/// not abort the parent's idle transactions: that would free the parent's
/// reader slots in the shared lock file. Then reads three at once in the
/// parent and counts its slots with `mdb_reader_list`.
func forkIdle(_ directory: String) throws -> String {
    var env: Environment? = try Environment.open(at: directory, databases: ["data"], options: pooled)
    try env?.read { _ in try env?.read { _ in try env?.read { _ in } } }
    let child = fork()
    if child == 0 {
        var code: Int32 = 1
        do { _ = try env?.read { _ in true } } catch LMDBError.forkedProcess { code = 0 } catch { code = 3 }
        env = nil
        _exit(code)
    }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    let childExit = (status >> 8) & 0xff
    // Three reads at once renew the three idle transactions.
    let parentReads = (try? env?.read { _ in try env?.read { _ in try env?.read { _ in true } } }) ?? nil
    var slots = 0
    let rc = mdb_reader_list(env!.handle.pointer, { line, count in
        let fields = String(cString: line!).split(separator: " ")
        if fields.count == 3, Int32(fields[0]) == getpid() { count!.assumingMemoryBound(to: Int.self).pointee += 1 }
        return 0
    }, &slots)
    guard rc >= 0 else { fail("mdb_reader_list failed") }
    return "child=\(childExit == 0 ? "refused" : "allowed(\(childExit))") parent=\(parentReads == true ? "ok" : "broken") slots=\(slots)"
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first, arguments.count >= 2 else {
    fail("usage: lmdb-probe hold-read|grow|read-pairs|fork-check|fork-release|fork-idle|idle-close|failed-opens DIR [ARG]")
}
let directory = arguments[arguments.startIndex + 1]
let argument = arguments.count > 2 ? arguments[arguments.startIndex + 2] : nil

do {
    switch command {
    case "hold-read":
        // Takes a reader slot and keeps it until killed.
        let env = try Environment.open(at: directory, databases: ["data"])
        try env.read { _ in
            say("ready")
            while true { pause() }
        }

    case "grow":
        // Writes ARG bytes through a 256 KiB map, so the map grows here and
        // the committed map size outgrows other processes' maps.
        guard let total = argument.flatMap({ Int($0) }) else { fail("grow needs a byte count") }
        var options = Environment.Options()
        options.mapSize = 256 << 10
        let env = try Environment.open(at: directory, databases: ["data"], options: options)
        let data = try env.database("data")
        try env.write { txn in
            let chunk = [UInt8](repeating: 0x47, count: 4096)
            for index in 0..<(total / chunk.count) {
                try txn.put(chunk, forKey: Array("grown-\(100_000 + index)".utf8), in: data)
            }
        }
        say("mapSize=\(env.info.mapSize)")

    case "read-pairs":
        // Reads keys "a" and "b" (written together by the test) until both
        // reach ARG, counting snapshots where they differ.
        guard let target = argument.flatMap({ UInt64($0) }) else { fail("read-pairs needs a target") }
        let env = try Environment.open(at: directory, databases: ["data"])
        let data = try env.database("data")
        var reads = 0, torn = 0, distinct = Set<UInt64>()
        say("ready")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let (a, b) = try env.read { txn in
                (try txn.value(forKey: Array("a".utf8), in: data), try txn.value(forKey: Array("b".utf8), in: data))
            }
            let valueA = a.map { $0.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } } ?? 0
            let valueB = b.map { $0.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } } ?? 0
            reads += 1
            if valueA != valueB { torn += 1 }
            distinct.insert(valueA)
            if valueA >= target && valueB >= target { break }
        }
        say("reads=\(reads) torn=\(torn) distinct=\(distinct.count)")

    case "fork-check":
        // Uses an environment in a forked child, which must be refused,
        // while the parent's copy keeps working.
        let env = try Environment.open(at: directory, databases: ["data"])
        _ = try env.read { _ in true }
        let child = fork()
        if child == 0 {
            var code: Int32 = 1
            do { _ = try env.read { _ in true } } catch LMDBError.forkedProcess { code = 0 } catch { code = 3 }
            _exit(code)
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        let childExit = (status >> 8) & 0xff
        let parentStillReads = (try? env.read { _ in true }) ?? false
        say("child=\(childExit == 0 ? "refused" : "allowed(\(childExit))") parent=\(parentStillReads ? "ok" : "broken")")

    case "fork-release":
        say(try forkRelease(directory))

    case "fork-idle":
        say(try forkIdle(directory))

    case "idle-close":
        // Opens DIR, leaves four idle read transactions, and closes it, ARG
        // times, and prints the heap bytes kept per cycle.
        guard let count = argument.flatMap({ Int($0) }) else { fail("idle-close needs a count") }
        func cycle() throws {
            let env = try Environment.open(at: directory, databases: ["data"], options: pooled)
            try env.read { _ in try env.read { _ in try env.read { _ in try env.read { _ in } } } }
        }
        for _ in 0..<50 { try cycle() }  // warm caches and lazily made globals
        let before = cheap_bytes_in_use()
        for _ in 0..<count { try cycle() }
        let after = cheap_bytes_in_use()
        say("leakedPerCycle=\(after > before ? (after - before) / count : 0)")

    case "failed-opens":
        // Opens DIR (whose data.mdb is not LMDB) ARG times and prints the
        // heap bytes kept per failed open.
        guard let count = argument.flatMap({ Int($0) }) else { fail("failed-opens needs a count") }
        func failOnce() {
            let outcome = Result { try Environment.open(at: directory, databases: ["data"]) }
            guard case .failure(LMDBError.invalid) = outcome else { fail("expected MDB_INVALID, got \(outcome)") }
        }
        for _ in 0..<50 { failOnce() }  // warm caches and lazily made globals
        let before = cheap_bytes_in_use()
        for _ in 0..<count { failOnce() }
        let after = cheap_bytes_in_use()
        say("leakedPerOpen=\(after > before ? (after - before) / count : 0)")

    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}
