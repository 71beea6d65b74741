import Foundation
@testable import ShareLog
import TestSupport
import Testing
@testable import BenchmarkKit

/// Keeps the benchmark from rotting: every workload runs at tiny sizes, and
/// the C-LMDB baseline still writes exactly what ShareLog writes. Timings
/// are never asserted; they mean nothing at these sizes.
@Suite(.timeLimit(.minutes(5))) struct BenchmarkSmokeTests {
    @Test func everyWorkloadRunsAtTinySizesForEverySystem() async throws {
        let directory = TemporaryDirectory()
        let work = directory.appending("work")
        // The debug sharelog-bench stands in for the statically linked one.
        let executables = Executables.besideThisProcess()
        let context = BenchContext(
            configuration: .smoke, workDirectory: work,
            executables: Executables(bench: executables.bench, staticBench: executables.bench, coldC: executables.coldC),
            log: { _ in })
        let report = try await BenchmarkRunner(context: context).run(on: .current(swift: "smoke test"))

        let ids = Set(report.measurements.figures.map(\.id))
        let expected: Set<String> = [
            "create.onePerCommit", "create.concurrent", "create.concurrent.sharesPerCommit", "create.batched",
            "create.batched.written", "fetch.threads1", "fetch.threads2",
            "sweep.n20.e20", "sweep.n20.e20.written", "sweep.n20.e20.floor", "sweep.n60.e20", "sweep.n60.e20.written",
            "sweep.n60.e20.floor", "sweep.n60.e10", "replay", "replay.rssAnonHalf", "replay.rssAnonPeak",
            "coldStart", "coldStart.processOnly", "coldStart.static", "coldStart.static.processOnly",
            "preview.card100k", "preview.overBase64",
            "create.concurrent.delay", "create.concurrent.delay.sharesPerCommit", "create.concurrent.noDelay",
            "create.concurrent.noDelay.sharesPerCommit", "create.concurrent.delay.vsSQLiteOnePerCommit",
            "create.concurrent.delay.vsNoDelay", "create.lone.delay", "create.lone.noDelay", "create.lone.delay.vsNoDelay",
        ]
        #expect(ids == expected)
        // Every figure has a measurement for exactly the systems that run it.
        // The values are timings, so they are only checked to be measured at
        // all: a workload that did nothing shows as zero, NaN or infinity.
        for figure in report.measurements.figures where figure.comparable {
            let systems: [BenchSystem] = figure.id.hasSuffix(".processOnly") ? [.shareLog, .cLMDB] : BenchSystem.allCases
            #expect(Set(figure.results.keys) == Set(systems.map(\.rawValue)), "\(figure.id)")
            for system in systems {
                let values = figure.results[system.rawValue]?.values ?? []
                #expect(!values.isEmpty && values.allSatisfy { $0.isFinite && $0 > 0 }, "\(figure.id), \(system.rawValue): \(values)")
            }
        }
        #expect(Set(report.targets.map(\.id)).count == 11)
        // The floor's bytes per share: a shareExpired event, 35 + 25 bytes by
        // docs/FORMAT.md, under its 8-byte log position.
        #expect(DiskFloor.bytesPerExpiredShare == 68)
        let floor = report.measurements.figure("sweep.n20.e20.floor")?.results
        #expect(floor.map { Set($0.keys) } == ["ShareLog"])
        #expect(floor?["ShareLog"]?.values.allSatisfy { $0.isFinite && $0 > 0 } == true)
        let preview = report.measurements.figure("preview.card100k")
        #expect(preview.map { Set($0.results.keys) } == ["ShareLog"])
        let previewValues = preview?.results["ShareLog"]?.values ?? []
        #expect(!previewValues.isEmpty && previewValues.allSatisfy { $0.isFinite && $0 > 0 }, "\(previewValues)")
        #expect(report.measurements.replayMemory.count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).isEmpty, "every store was removed")

        let decoded = try JSONDecoder().decode(BenchReport.self, from: try report.json())
        #expect(decoded.measurements.figures.count == report.measurements.figures.count)
        #expect(ReportTable.render(report).contains("fetch by id, 2 threads"))
        #expect(try SweepChart.write(report, to: directory.path) == directory.appending("sweep.gp"))
        #expect(FileManager.default.fileExists(atPath: directory.appending("sweep.dat")))

        // The C-LMDB baseline does ShareLog's work byte for byte: a store it
        // filled and swept opens in ShareLog and verifies.
        let path = directory.appending("c-lmdb")
        let deck = CardDeck(mixed: true, pool: 20)
        let (store, names) = try await context.filledStore(
            .cLMDB, at: path, deck: deck, parts: [.due(5), .live(15)],
            sweepAt: BenchTime.start + 2 * BenchTime.day)
        store.close()
        let shareLog = try ShareStore.open(at: path)
        let verification = try await shareLog.verify()
        #expect(verification.isConsistent)
        #expect(verification.events == 25)
        // Card 0 was due a day after 1_800_000_000_000 and swept; card 19
        // lives for 30 days from then.
        let recordNames = ShareLogBenchStore.recordNames(from: names)
        #expect(recordNames.count == 20)
        let first = try #require(recordNames.first), last = try #require(recordNames.last)
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        #expect(try shareLog.fetch(first, at: now) == .expired(at: Timestamp(milliseconds: 1_800_086_400_000), reason: .ttl))
        #expect(try shareLog.fetch(last, at: now) == .live(Share(
            recordName: last, vCard: deck.card(19), createdAt: now, expiresAt: Timestamp(milliseconds: 1_802_592_000_000))))
    }
}
