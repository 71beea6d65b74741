import Foundation
import Glibc
import TestSupport
import Testing
import TestTraits
@testable import LMDB

/// `Environment.copyCompacted(into:)`: LMDB's compacting copy behind the
/// wrapper's rules. The copy holds the snapshot's entries and none of the
/// pages the environment freed; it never writes over a file, and leaves
/// none behind when it fails.
@Suite(.ownThread) struct CopyTests {
    static let gone = "DELETED-VALUE-7c21"

    /// An environment whose "log" holds 300 entries, and whose free pages
    /// hold 300 deleted ones (never scrubbed): the file still has them.
    static func environment(in directory: TemporaryDirectory) throws -> (Environment, Database) {
        let env = try Environment.open(at: directory.appending("source"), databases: ["log"])
        let log = try env.database("log")
        try env.write { txn in
            for number in 0..<300 {
                try txn.put(Array("\(gone) \(number) ".utf8) + [UInt8](repeating: 0x2D, count: 200), forKey: Array("b\(1_000 + number)".utf8), in: log)
            }
        }
        try env.write { txn in
            for number in 0..<300 {
                try txn.put(Array("kept \(number) ".utf8) + [UInt8](repeating: 0x2B, count: 200), forKey: Array("a\(1_000 + number)".utf8), in: log)
                _ = try txn.delete(Array("b\(1_000 + number)".utf8), in: log)
            }
        }
        return (env, log)
    }

    @Test func aCompactedCopyHoldsTheSnapshotAndNoFreedPage() throws {
        let directory = TemporaryDirectory()
        let (env, log) = try Self.environment(in: directory)
        defer { env.close() }
        #expect(try StoreFiles.holding(Self.gone, in: directory.appending("source")) == ["data.mdb"])
        let target = directory.appending("copy")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)

        try env.copyCompacted(into: target)

        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["data.mdb"])
        #expect(try StoreFiles.holding(Self.gone, in: target) == [])
        var status = stat()
        #expect(stat(target + "/data.mdb", &status) == 0 && status.st_mode & 0o777 == 0o600)
        let copy = try Environment.open(at: target, databases: ["log"])
        defer { copy.close() }
        let copied = try copy.read { txn in
            var keys: [String] = []
            try txn.scan(try copy.database("log")) { entry in
                keys.append(String(decoding: entry.key, as: UTF8.self))
                return .proceed
            }
            return keys
        }
        #expect(copied == (0..<300).map { "a\(1_000 + $0)" })
        #expect(try env.read { txn in try txn.count(in: log) } == 300)
    }

    /// A directory that holds a `data.mdb` already: refused with `EEXIST`,
    /// the file left as it was. After `close()`: `closed`, nothing made.
    @Test func aCopyNeverWritesOverAFileAndNotAfterClose() throws {
        let directory = TemporaryDirectory()
        let (env, _) = try Self.environment(in: directory)
        let target = directory.appending("copy")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: target + "/data.mdb"))
        #expect(throws: LMDBError(code: EEXIST)) { try env.copyCompacted(into: target) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target + "/data.mdb")) == Data("mine".utf8))

        let empty = directory.appending("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        env.close()
        #expect(throws: LMDBError.closed) { try env.copyCompacted(into: empty) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty) == [])
    }
}
