import Foundation
import ShareLog
import TestSupport
import Testing
@testable import BenchmarkKit

/// Keeps the upload workload (issue 32) from rotting: at tiny sizes (1 s
/// `wrk` runs, 16 shares per anchor), every row has every system, the
/// goal is evaluated, and what the gateway was sent became real shares.
/// Timings are never asserted; they mean nothing at these sizes.
@Suite(.timeLimit(.minutes(5))) struct UploadWorkloadSmokeTests {
    private static func context(_ directory: TemporaryDirectory) -> BenchContext {
        var configuration = BenchConfiguration.smoke
        configuration.upload = .smoke
        return BenchContext(
            configuration: configuration, workDirectory: directory.appending("work"), executables: .besideThisProcess(), log: { _ in })
    }

    /// What `wrk` sends through the stage is what a phone would: each
    /// request made one share of one of the pool's cards, byte for byte,
    /// under a key of its own, and the token shows its use.
    @Test func theUploadsBecomeSharesOfThePoolsCards() throws {
        let directory = TemporaryDirectory()
        let context = Self.context(directory)
        let deck = CardDeck(mixed: true, pool: context.configuration.cardPool)
        let storePath = directory.appending("store")
        let stage = try UploadStage(
            context: context, storePath: storePath, directory: directory.appending("files"), deck: deck, threads: 2, pinning: .detect())
        let run: WrkRun
        do {
            defer { stage.stop() }
            run = try stage.upload(clients: 2, seconds: 1, tag: "smoke", pinning: .detect())
        }
        let store = try ShareStore.open(at: storePath, options: SyncPeer.options(now: SyncBench.now))
        defer { store.close() }
        let entries = try store.idempotencyEntries()
        // wrk does not count the last request of a connection whose answer
        // came after its time was up; the gateway may have made its share.
        #expect(entries.count >= run.requests && entries.count <= run.requests + 2, "\(entries.count) keys for \(run.requests) uploads")
        #expect(Set(entries.map(\.recordName)).count == entries.count, "a share per key")
        #expect(try store.stats().live == entries.count)
        let pool = Set(deck.cards)
        for entry in entries {
            guard case .live(let share) = try store.fetch(entry.recordName) else { Issue.record("\(entry.recordName) is not live"); continue }
            #expect(pool.contains(share.vCard), "\(entry.recordName) holds a card of \(share.vCard.count) bytes that is not the pool's")
        }
        #expect(try store.tokens().map(\.lastUsedAt) == [Timestamp(milliseconds: SyncBench.now)])
    }

    @Test func everyRowHasEverySystemAndTheGoal() async throws {
        let directory = TemporaryDirectory()
        let context = Self.context(directory)
        let upload = try #require(context.configuration.upload)
        let report = try await BenchmarkRunner(context: context, only: ["upload"]).run(on: .current(swift: "smoke test"))

        var expected: Set<String> = []
        for clients in upload.clients {
            expected.formUnion(["", ".p50", ".p99", ".cpu", ".sharesPerCommit"].map { "upload.c\(clients)" + $0 })
        }
        #expect(Set(report.measurements.figures.map(\.id)) == expected)
        for clients in upload.clients {
            let row = try #require(report.measurements.figure("upload.c\(clients)"))
            #expect(Set(row.results.keys) == ["ShareLog", "library", "SQLite"], "\(row.id)")
            for (system, sample) in row.results {
                #expect(!sample.values.isEmpty && sample.values.allSatisfy { $0.isFinite && $0 > 0 }, "\(row.id), \(system): \(sample.values)")
            }
            // SQLite's commits are not counted; both LMDB stores' are.
            #expect(Set(report.measurements.figure("upload.c\(clients).sharesPerCommit")?.results.keys ?? [:].keys) == ["ShareLog", "library"])
        }
        #expect(report.targets.map(\.id) == ["upload.vsLibrary"])

        let table = ReportTable.render(report)
        #expect(table.contains("Upload workload (issue 32)"))
        #expect(table.contains("one share per upload or create, 8 clients"))
        #expect(ProcessList.naming(directory.path) == [], "the gateway was stopped")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appending("work")).isEmpty, "every store was removed")
    }
}
