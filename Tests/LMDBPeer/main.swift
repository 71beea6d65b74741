// A second read-write process for the multi-process tests of MDB_WRITEMAP:
// a peer that writes to an environment the test process also has open.
// It prints one line per step; it waits for the test between steps by
// polling for a file the test creates, for at most a minute.
//
//   lmdb-peer expire-then-write DIR GO  says "liblmdb X.Y.Z" (the library it
//       loaded), writes secrets (values repeating
//       "VCARD-SECRET") and public values into "shares" and "notes", expires
//       the secrets (zeros, then deletes), says "expired", waits for GO, then
//       adds and deletes public values only and says "done SHARES NOTES"
//       (its entry counts).
//   lmdb-peer hold-large-map DIR GO MAP  opens with a MAP-byte map, writes
//       one entry, says "ready MAPSIZE", waits for GO, then writes 700
//       values of a page each in one transaction and says "wrote 701".
import CLMDB
import Foundation
import Glibc
import LMDB

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lmdb-peer: \(message)\n".utf8))
    exit(2)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data("\(line)\n".utf8))
}

/// Returns once `path` exists; exits with status 3 after a minute.
func waitFor(_ path: String) {
    let end = ContinuousClock.now.advanced(by: .seconds(60))
    while access(path, F_OK) != 0 {
        if ContinuousClock.now > end { fail("gave up waiting for '\(path)'") }
        usleep(2_000)
    }
}

/// A deterministic generator (SplitMix64), so every run writes the same.
struct Numbers {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

func repeating(_ unit: String, size: Int) -> [UInt8] {
    let bytes = Array(unit.utf8)
    return (0..<size).map { bytes[$0 % bytes.count] }
}

func secret(_ number: Int, size: Int) -> [UInt8] {
    repeating("VCARD-SECRET;TEL:+33-6-\(10_000_000 + number);EMAIL:p\(number)@example.org;", size: size)
}

func publicValue(_ number: Int, size: Int) -> [UInt8] { repeating("note \(number) public;", size: size) }

func shareKey(_ number: Int) -> [UInt8] { Array("share-\(String(format: "%05d", number))".utf8) }

/// Writes secrets and public entries in eight commits, with keys that sort
/// between each other so pages split and nodes move; expires the secrets;
/// then, after GO, changes public entries only.
func expireThenWrite(_ directory: String, go: String) throws {
    var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
    _ = mdb_version(&major, &minor, &patch)
    say("liblmdb \(major).\(minor).\(patch)")
    let env = try Environment.open(at: directory, databases: ["shares", "notes"])
    let shares = try env.database("shares"), notes = try env.database("notes")
    var numbers = Numbers(state: 7)
    var secrets: [([UInt8], [UInt8])] = []
    var publicShares: [[UInt8]: [UInt8]] = [:], publicNotes: [[UInt8]: [UInt8]] = [:]
    for number in 0..<256 {
        let size = number < 240 ? 900 + numbers.next(300) : 60_000 + numbers.next(4000)
        secrets.append((shareKey(number), secret(number, size: size)))
        let publicSize = number % 25 == 0 ? 9_000 + numbers.next(9_000) : 10 + numbers.next(1500)
        publicShares[shareKey(number) + Array("-note".utf8)] = publicValue(number, size: publicSize)
    }
    for number in 0..<400 {
        publicNotes[Array("note-\(number)".utf8)] = publicValue(number, size: number % 40 == 0 ? 20_000 : 1 + numbers.next(700))
    }
    let sortedShares = publicShares.sorted { $0.key.lexicographicallyPrecedes($1.key) }
    let sortedNotes = publicNotes.sorted { $0.key.lexicographicallyPrecedes($1.key) }
    for batch in 0..<8 {
        try env.write { [secrets] txn in
            for (index, (key, value)) in secrets.enumerated() where index % 8 == batch {
                try txn.put(value, forKey: key, in: shares)
            }
            for (index, entry) in sortedShares.enumerated() where index % 8 == (batch + 3) % 8 {
                try txn.put(entry.value, forKey: entry.key, in: shares)
            }
            for (index, entry) in sortedNotes.enumerated() where index % 8 == batch {
                try txn.put(entry.value, forKey: entry.key, in: notes)
            }
        }
    }
    // What compaction does to an expired card: overwrite, then delete.
    try env.write { [secrets] txn in
        for (key, value) in secrets { try txn.put([UInt8](repeating: 0, count: value.count), forKey: key, in: shares) }
    }
    try env.write { [secrets] txn in
        for (key, _) in secrets { try txn.delete(key, in: shares) }
    }
    say("expired")
    waitFor(go)
    for round in 0..<6 {
        let added = (0..<300).map { number in
            (Array("later-\(round)-\(number)".utf8), publicValue(number, size: 50 + (number * 7 + round) % 900))
        }
        let removed = stride(from: round, to: 256, by: 6).map { shareKey($0) + Array("-note".utf8) }
        try env.write { txn in
            for (key, value) in added { try txn.put(value, forKey: key, in: notes) }
            for key in removed { try txn.delete(key, in: shares) }
        }
    }
    let counts = try env.read { txn in (try txn.count(in: shares), try txn.count(in: notes)) }
    say("done \(counts.0) \(counts.1)")
}

/// Holds the environment open with a large map while the test opens it
/// with a smaller one, then writes past the smaller map's end.
func holdLargeMap(_ directory: String, go: String, map: Int) throws {
    var options = Environment.Options()
    options.mapSize = map
    let env = try Environment.open(at: directory, databases: ["data"], options: options)
    let data = try env.database("data")
    try env.write { txn in try txn.put([1], forKey: Array("first".utf8), in: data) }
    say("ready \(env.info.mapSize)")
    waitFor(go)
    try env.write { txn in
        // One overflow page each (4,000 bytes and a 16-byte header).
        let value = [UInt8](repeating: 0x4C, count: 4000)
        for index in 0..<700 { try txn.put(value, forKey: Array("large-\(1000 + index)".utf8), in: data) }
    }
    say("wrote \(try env.read { txn in try txn.count(in: data) })")
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("expire-then-write", 3):
        try expireThenWrite(arguments[1], go: arguments[2])
    case ("hold-large-map", 4):
        guard let map = Int(arguments[3]) else { fail("MAP must be a byte count") }
        try holdLargeMap(arguments[1], go: arguments[2], map: map)
    default:
        fail("usage: lmdb-peer expire-then-write DIR GO | hold-large-map DIR GO MAP")
    }
} catch {
    fail("\(error)")
}
