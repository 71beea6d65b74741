import Foundation
import Testing
import TestSupport
import TestTraits

/// The store is a plain LMDB environment that tools outside ShareLog read:
/// Debian's lmdb-utils and Python's lmdb binding (python3-lmdb). Every
/// expected value here is written by hand from the steps `ReaderScenario`
/// drives (its clock settings, TTLs, cards and receipts), never decoded by
/// ShareLog: the tools must find exactly that in the files. The Python
/// reader (Tests/Readers/read_store.py) decodes from docs/FORMAT.md alone,
/// so these tests also prove that document precise. Scripts/test installs
/// both packages.
@Suite(.hangDeadline, .ownThread) struct IndependentReaderTests {
    /// The check value of the CRC-32 the format names (zlib's): FormatBytes
    /// computes it as the document describes.
    @Test func formatBytesComputesZlibsCRC32() {
        #expect(FormatBytes.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(FormatBytes.crc32([]) == 0)
    }

    @Test func mdbStatCountsTheEntriesTheScenarioLeaves() throws {
        let scenario = try ReaderScenario()
        let output = try ExternalTool.succeed(ExternalTool.mdbStat, ["-a", scenario.path], package: "lmdb-utils").output
        // "Status of NAME" blocks, each with an "Entries: N" line.
        var entries: [String: Int] = [:]
        var current: String?
        for line in output.split(separator: "\n") {
            if line.hasPrefix("Status of ") { current = String(line.dropFirst("Status of ".count)) }
            if let name = current, let range = line.range(of: "Entries: ") { entries[name] = Int(line[range.upperBound...]) }
        }
        var expected = scenario.expected.databases
        expected["Main DB"] = 9
        #expect(entries == expected)
    }

    /// `mdb_dump` shows every log entry, share state and expiry entry, key
    /// and value, as FORMAT.md lays out the hand-written expectation.
    @Test func mdbDumpGivesTheBytesTheFormatPrescribes() throws {
        let scenario = try ReaderScenario()
        let expected = scenario.expected
        try expectDump(
            of: "log", in: scenario.path,
            equals: expected.events.map { (FormatBytes.bigEndian($0.sequence), FormatBytes.event($0)) })
        try expectDump(
            of: "shares", in: scenario.path,
            equals: expected.shares.map { (FormatBytes.identifier($0.recordName), FormatBytes.shareState($0)) })
        try expectDump(
            of: "expiry", in: scenario.path,
            equals: expected.expiry.map { (FormatBytes.expiryKey($0), FormatBytes.expiryValue($0)) })
    }

    /// Every field of every database, as the Python reader decodes it, is
    /// what the scenario's steps must leave: live, swept, revoked, redacted
    /// and pending-redaction shares, a tombstone that arrived before its
    /// creation, one whose creation never came, one with both a TTL end and
    /// a revocation, a TTL end that a late creation replaces, a rival
    /// creation that wins, a foreign live share, and an unknown kind with
    /// its own flags.
    @Test func pythonReadsEveryFieldTheScenarioWrote() throws {
        let scenario = try ReaderScenario()
        try expect(PythonReader.read(scenario.path), equals: scenario.expected)
    }

    /// A `cursors` entry (sync writes them; the scenario has none), put
    /// into a copy as FORMAT.md lays it out, reads back field by field.
    @Test func pythonReadsACursor() throws {
        let scenario = try ReaderScenario()
        let copy = try DamagedCopy(of: scenario.path)
        let peer = ReaderScenario.foreign, epoch = "0e0c0000-0000-4000-8000-00000000ec01"
        try copy.put(
            FormatBytes.identifier(epoch) + FormatBytes.bigEndian(UInt64(0x0102_0304_0506_0708)) + FormatBytes.bigEndian(UInt64(0x0000_0190_0000_0001)),
            forKey: FormatBytes.identifier(peer), in: "cursors")
        var expected = scenario.expected
        expected.databases["cursors"] = 1
        expected.cursors = [ReaderOutput.Cursor(peer: peer, epoch: epoch, position: 0x0102_0304_0506_0708, lastSeen: 0x0000_0190_0000_0001)]
        try expect(PythonReader.read(copy.path), equals: expected)
    }

    /// A store of format 1 (the committed fixture that the upgrade starts
    /// from) reads by format 1's layout: `schema` 1 decides it.
    @Test func pythonReadsTheFormat1Fixture() throws {
        let directory = TemporaryDirectory()
        let path = try ReaderFormat1Fixture.copy(into: directory)
        let result = try PythonReader.run(path)
        #expect(result.status == 0, Comment(rawValue: result.error))
        let read = try JSONDecoder().decode(ReaderOutputFormat1.self, from: Data(result.output.utf8))
        let expected = try ReaderFormat1Fixture.expected()
        #expect(read.databases == expected.databases)
        #expect(read.meta == expected.meta)
        expect(read.events, equals: expected.events, "log", sourceLocation: #_sourceLocation)
        #expect(read.eventIndex == expected.eventIndex)
        expect(read.shares, equals: expected.shares, "shares", sourceLocation: #_sourceLocation)
        #expect(read.expiry == expected.expiry)
        #expect(read.recordCreates == expected.recordCreates)
        #expect(read.pendingRedactions == expected.pendingRedactions)
    }

    /// A copy made by `mdb_copy` reads the same: the refusal tests damage
    /// such copies, so any refusal there comes from the damage.
    @Test func pythonReadsAnUndamagedCopyTheSame() throws {
        let scenario = try ReaderScenario()
        let copy = try DamagedCopy(of: scenario.path)
        try expect(PythonReader.read(copy.path), equals: scenario.expected)
    }

    @Test(arguments: ReaderDamage.allCases)
    func pythonRefusesAStoreThatBreaksTheFormat(_ damage: ReaderDamage) throws {
        let scenario = try ReaderScenario()
        let copy = try DamagedCopy(of: scenario.path)
        let (key, value, refusal) = damage.damage(scenario)
        try copy.put(value, forKey: key, in: damage.database)
        let result = try PythonReader.run(copy.path)
        #expect(result.status == 2)
        #expect(result.output.isEmpty, "a refused store prints no JSON")
        #expect(result.error == "read_store.py: refused \(copy.path): \(refusal)\n")
    }

    /// Compares what a reader decoded with the expectation, section by
    /// section and entry by entry, so a failure names the entry that differs.
    func expect(_ read: ReaderOutput, equals expected: ReaderOutput, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(read.databases == expected.databases, sourceLocation: sourceLocation)
        #expect(read.meta == expected.meta, sourceLocation: sourceLocation)
        expect(read.events, equals: expected.events, "log", sourceLocation: sourceLocation)
        expect(read.eventIndex, equals: expected.eventIndex, "eventIndex", sourceLocation: sourceLocation)
        expect(read.shares, equals: expected.shares, "shares", sourceLocation: sourceLocation)
        expect(read.expiry, equals: expected.expiry, "expiry", sourceLocation: sourceLocation)
        #expect(read.pendingRedactions == expected.pendingRedactions, sourceLocation: sourceLocation)
        expect(read.cursors, equals: expected.cursors, "cursors", sourceLocation: sourceLocation)
    }

    func expect<Entry: Equatable>(
        _ read: [Entry], equals expected: [Entry], _ database: String, sourceLocation: SourceLocation
    ) {
        #expect(read.count == expected.count, "\(database) entries", sourceLocation: sourceLocation)
        for (index, (found, wanted)) in zip(read, expected).enumerated() {
            #expect(found == wanted, "\(database) entry \(index)", sourceLocation: sourceLocation)
        }
    }

    /// Checks that `mdb_dump -s database` prints exactly `entries`, in order.
    func expectDump(of database: String, in path: String, equals entries: [([UInt8], [UInt8])]) throws {
        let output = try ExternalTool.succeed(ExternalTool.mdbDump, ["-s", database, path], package: "lmdb-utils").output
        // After HEADER=END, key and value lines alternate, each a space and hex digits, until DATA=END.
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "HEADER=END")) + 1
        let end = try #require(lines.firstIndex(of: "DATA=END"))
        let data = lines[start..<end].map { FormatBytes.hex($0.dropFirst()) }
        #expect(data.count == 2 * entries.count, "\(database) lines")
        for (index, (key, value)) in entries.enumerated() where 2 * index + 1 < data.count {
            #expect(data[2 * index] == key, "\(database) key \(index)")
            #expect(data[2 * index + 1] == value, "\(database) value \(index)")
        }
    }
}
