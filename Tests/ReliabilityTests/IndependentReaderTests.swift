import Foundation
import Testing
@testable import ShareLog

/// The store is a plain LMDB environment that tools outside ShareLog read:
/// Debian's lmdb-utils and Python's lmdb binding (python3-lmdb). The Python
/// reader (Tests/Readers/read_store.py) decodes every database from
/// docs/FORMAT.md alone, so these tests also prove that document precise.
/// Scripts/test installs both packages.
@Suite struct IndependentReaderTests {
    static let python = "/usr/bin/python3"
    static let reader = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Readers/read_store.py").path

    /// Runs an installed tool, failing with what to install when it is missing.
    static func tool(_ path: String, _ arguments: [String], package: String) throws -> ExternalCommand {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw MissingTool(path: path, package: package) }
        let result = try ExternalCommand.run(path, arguments)
        #expect(result.status == 0, "\(path) failed: \(result.error)")
        return result
    }

    @Test func mdbStatFindsEveryNamedDatabaseAndEveryEvent() throws {
        let populated = try PopulatedStore()
        let stats = try populated.store.stats()
        let output = try Self.tool("/usr/bin/mdb_stat", ["-a", populated.fixture.path], package: "lmdb-utils").output
        // "Status of NAME" blocks, each with an "Entries: N" line.
        var entries: [String: Int] = [:]
        var current: String?
        for line in output.split(separator: "\n") {
            if line.hasPrefix("Status of ") { current = String(line.dropFirst("Status of ".count)) }
            if let name = current, let range = line.range(of: "Entries: ") { entries[name] = Int(line[range.upperBound...]) }
        }
        #expect(Set(entries.keys) == Set(Schema.names + ["Main DB"]))
        #expect(entries["Main DB"] == Schema.names.count)
        #expect(entries["log"] == stats.events)
        #expect(entries["eventIndex"] == stats.events)
        #expect(entries["shares"] == stats.live + stats.expired)
        #expect(entries["pendingRedactions"] == stats.pendingRedactions)
    }

    @Test func mdbDumpGivesEveryEventByteForByte() throws {
        let populated = try PopulatedStore()
        let events = try populated.events()
        let output = try Self.tool("/usr/bin/mdb_dump", ["-s", "log", populated.fixture.path], package: "lmdb-utils").output
        // After HEADER=END, key and value lines alternate, each a space and hex digits, until DATA=END.
        let lines = output.split(separator: "\n")
        let start = try #require(lines.firstIndex(of: "HEADER=END")) + 1
        let end = try #require(lines.firstIndex(of: "DATA=END"))
        let data = lines[start..<end].map { bytes(hex: $0.dropFirst()) }
        #expect(data.count == 2 * events.count)
        for (index, logged) in events.enumerated() where 2 * index + 1 < data.count {
            #expect(data[2 * index] == Key.sequence(logged.sequence))
            #expect(data[2 * index + 1] == EventCodec.encode(logged.event))
        }
    }

    @Test func pythonDecodesEveryDatabaseFromTheFormatDocument() throws {
        let populated = try PopulatedStore()
        let store = populated.store
        let result = try Self.tool(Self.python, [Self.reader, populated.fixture.path], package: "python3-lmdb")
        let read = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let stats = try store.stats()

        let databases = try #require(read["databases"] as? [String: Int])
        #expect(Set(databases.keys) == Set(Schema.names))
        #expect(databases["log"] == stats.events)
        let meta = try #require(read["meta"] as? [String: Any])
        #expect(meta["schema"] as? Int == 1)
        #expect(meta["replica"] as? String == store.replicaID.description)
        #expect(meta["epoch"] as? String == store.epoch.description)
        #expect(meta["live-count"] as? Int == stats.live)
        #expect(meta["expired-count"] as? Int == stats.expired)

        let events = try #require(read["events"] as? [[String: Any]])
        let logged = try populated.events()
        #expect(events.count == logged.count)
        for (python, swift) in zip(events, logged) { expect(python, describes: swift) }

        let shares = try #require(read["shares"] as? [String: [String: Any]])
        #expect(shares.count == stats.live + stats.expired)
        for (text, state) in shares {
            let name = try #require(RecordName(text))
            try expect(state, describes: store.fetch(name, at: populated.now))
        }
        let index = try #require(read["eventIndex"] as? [String: Int])
        #expect(index.count == logged.count)
        for entry in logged { #expect(index[entry.event.id.description] == Int(entry.sequence)) }
        #expect((read["expiry"] as? [Any])?.count == stats.live)
        #expect((read["pendingRedactions"] as? [Any])?.count == stats.pendingRedactions)
    }

    /// Checks the Python reader's decoding of one log entry against ShareLog's.
    func expect(_ python: [String: Any], describes logged: LoggedEvent) {
        #expect(python["sequence"] as? Int == Int(logged.sequence))
        #expect(python["checksumValid"] as? Bool == true, "zlib.crc32 disagrees at \(logged.sequence)")
        #expect(python["version"] as? Int == 1)
        #expect(python["origin"] as? String == logged.event.id.origin.description)
        #expect(python["originSequence"] as? Int == Int(logged.event.id.sequence))
        switch logged.event.kind {
        case .shareCreated(let created):
            #expect(python["kindName"] as? String == "shareCreated")
            #expect(python["recordName"] as? String == created.recordName.description)
            #expect(python["createdAt"] as? Int == Int(created.createdAt.milliseconds))
            #expect(python["expiresAt"] as? Int == Int(created.expiresAt.milliseconds))
            #expect(python["redacted"] as? Bool == (created.vCard == nil))
            #expect((python["vCard"] as? String).map { Array($0.utf8) } == created.vCard)
        case .shareExpired(let expired):
            #expect(python["kindName"] as? String == "shareExpired")
            #expect(python["recordName"] as? String == expired.recordName.description)
            #expect(python["at"] as? Int == Int(expired.at.milliseconds))
            #expect(python["reason"] as? String == expired.reason.description)
        case .unknown(let code, _, let payload):
            #expect(python["kind"] as? Int == Int(code))
            #expect(python["payload"] as? String == payload.map { String(format: "%02x", $0) }.joined())
        }
    }

    /// Checks the Python reader's decoding of one share state against `fetch`.
    func expect(_ state: [String: Any], describes fetched: FetchResult) {
        #expect(state["version"] as? Int == 1)
        switch fetched {
        case .live(let share):
            #expect(state["hasCreation"] as? Bool == true && state["hasExpiry"] as? Bool == false)
            #expect(state["expiresAt"] as? Int == Int(share.expiresAt.milliseconds))
            #expect((state["vCard"] as? String).map { Array($0.utf8) } == share.vCard)
        case .expired(let at, let reason):
            #expect(state["hasExpiry"] as? Bool == true && state["hasVCard"] as? Bool == false)
            #expect(state["expiredAt"] as? Int == Int(at.milliseconds))
            #expect(state["reason"] as? String == reason.description)
        case .notFound:
            Issue.record("a share in the shares database is not found by fetch")
        }
    }

    struct MissingTool: Error, CustomStringConvertible {
        let path: String
        let package: String
        var description: String { "\(path) is missing: install Debian's \(package) (Scripts/test does)" }
    }

    func bytes(hex: Substring) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }
}
