import Foundation
import Testing
import TestSupport
@testable import ShareLog
import TestTraits

/// `verify` puts no card anywhere the store's privacy guarantee does not
/// cover: while it runs (which is what a crash at that moment would leave),
/// after it returns, and when its process is killed, no file outside the
/// store's directory holds a byte of any card, and it leaves nothing in the
/// temporary directory.
///
/// Every card carries a marker made for this run, so a file that holds the
/// marker holds card bytes, and no other test can put it there.
@Suite(.hangDeadline, .ownThread) struct VerifyPrivacyTests {
    let marker = "verify-privacy-\(UUID().uuidString)"

    func card(_ index: Int) -> [UInt8] {
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Privacy \(index)\r\nNOTE:\(marker)\r\nEND:VCARD\r\n".utf8)
    }

    /// A store holding cards in every state: redacted (`compacted` of them),
    /// expired and still in the log (`expired`), and live (`live`).
    func store(compacted: Int, expired: Int, live: Int) throws -> TestStore {
        let test = try TestStore()
        _ = try test.store.create(vCards: (0..<compacted).map(card), ttl: .seconds(60))
        test.clock.advance(by: .seconds(60))
        try test.store.sweep()
        try test.store.compact()
        for start in stride(from: 0, to: expired, by: 1000) {
            _ = try test.store.create(vCards: (start..<min(start + 1000, expired)).map(card), ttl: .seconds(60))
        }
        _ = try test.store.create(vCards: (0..<live).map(card), ttl: .seconds(3600))
        test.clock.advance(by: .seconds(60))
        try test.store.sweep()
        return test
    }

    /// Files that hold the marker: regular files under `directory` changed
    /// since `since`, and those `pid` holds open that were not open at the
    /// start (`openBefore`); never the store's own files, nor any `lock.mdb`.
    func filesHoldingTheMarker(
        under directory: String, changedSince since: Date, openBy pid: String, except openBefore: Set<String> = [], store: String
    ) -> [String] {
        var candidates: [String] = []
        if let walk = FileManager.default.enumerator(atPath: directory) {
            while let relative = walk.nextObject() as? String {
                let path = (directory as NSString).appendingPathComponent(relative)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      attributes[.type] as? FileAttributeType == .typeRegular,
                      (attributes[.modificationDate] as? Date ?? .distantPast) >= since
                else { continue }
                candidates.append(path)
            }
        }
        candidates += Self.openRegularFiles(of: pid).subtracting(openBefore)
        let needle = Data(marker.utf8)
        return Set(candidates).filter { path in
            // Never another store's lock.mdb: closing a descriptor of it drops
            // every POSIX lock liblmdb holds on it for this whole process, and
            // the next process to open that store resets its reader table
            // (docs/LMDB.md, "What the caller must not do"). It holds pids and
            // transaction ids, never card bytes.
            !path.hasPrefix(store + "/") && (path as NSString).lastPathComponent != "lock.mdb"
                && (FileManager.default.contents(atPath: path).map { $0.range(of: needle) != nil } ?? false)
        }.sorted()
    }

    /// The regular files process `pid` holds open, from /proc.
    static func openRegularFiles(of pid: String) -> Set<String> {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return Set(fds.compactMap { fd -> String? in
            guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                  path.hasPrefix("/"),
                  (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular
            else { return nil }
            return path
        })
    }

    @Test func noFileOutsideTheStoreHoldsACardWhileVerifyRunsOrAfter() throws {
        let test = try store(compacted: 10, expired: 20, live: 30)
        let storePath = test.directory.appending("store")
        // Each expiry is logged too: 10 + 10 + 20 + 20 + 30 entries.
        #expect(try test.store.stats().events == 90)
        let start = Date(timeIntervalSinceNow: -1)
        let openBefore = Self.openRegularFiles(of: "self")
        var progress: [Int] = []
        var leaks: [String] = []
        let report = try test.store.verify(chunkSize: 30) { entries in
            progress.append(entries)
            leaks += filesHoldingTheMarker(
                under: NSTemporaryDirectory(), changedSince: start, openBy: "self", except: openBefore, store: storePath)
        }
        leaks += filesHoldingTheMarker(
            under: NSTemporaryDirectory(), changedSince: start, openBy: "self", except: openBefore, store: storePath)
        #expect(report.isConsistent)
        // Checked three times while verify ran, and once after.
        #expect(progress == [30, 60, 90])
        #expect(leaks == [])
        // The store itself does hold the marker: the search finds cards where they are.
        #expect(try test.rawFiles()["data.mdb"].map { $0.range(of: Data(marker.utf8)) != nil } == true)
    }

    @Test func aVerifyProcessLeavesNothingInItsTemporaryDirectoryEvenWhenKilled() throws {
        // Enough entries that verify runs a while: 24,000 of them.
        let test = try store(compacted: 0, expired: 12_000, live: 0)
        let storePath = test.directory.appending("store")
        let temporary = TemporaryDirectory()
        let start = Date(timeIntervalSinceNow: -1)
        let process = try Subprocess(
            CLI.executable.path, ["--store", storePath, "--now", "2026-12-01T10:00:00Z", "verify", "--json"],
            environment: CLI.inheritedEnvironment.merging(["TMPDIR": temporary.path]) { _, new in new })
        let pid = String(process.pid)
        // What a crash at each moment would leave behind; at the first
        // sight of a card, kill the process and see what stays.
        var seen: [String] = []
        try Deadline.block(until: "verify exits", timeout: .seconds(120)) {
            if seen.isEmpty {
                seen = filesHoldingTheMarker(under: temporary.path, changedSince: start, openBy: pid, store: storePath)
                if !seen.isEmpty { process.kill() }
            }
            return !process.isRunning
        }
        let outcome = try process.finish()
        #expect(seen == [])
        #expect(!outcome.signaled && outcome.status == 0)
        #expect(String(decoding: outcome.output, as: UTF8.self).contains("\"consistent\":true"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }
}
