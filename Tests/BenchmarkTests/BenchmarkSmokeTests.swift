import Foundation
import ShareLog
import TestSupport
import Testing
@testable import BenchmarkKit

/// Keeps the benchmark from rotting: every workload runs at tiny sizes, and
/// the C-LMDB baseline still writes exactly what ShareLog writes. Timings
/// are never asserted; they mean nothing at these sizes.
@Suite struct BenchmarkSmokeTests {
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
            "sweep.n20.e20", "sweep.n20.e20.written", "sweep.n60.e20", "sweep.n60.e20.written", "sweep.n60.e10", "replay", "replay.rssAnonHalf", "replay.rssAnonPeak",
            "coldStart", "coldStart.processOnly", "coldStart.static", "coldStart.static.processOnly",
            "preview.card100k", "preview.overBase64",
        ]
        #expect(ids == expected)
        for figure in report.measurements.figures where figure.comparable {
            let systems: [BenchSystem] = figure.id.hasSuffix(".processOnly") ? [.shareLog, .cLMDB] : BenchSystem.allCases
            for system in systems {
                #expect((figure.median(system) ?? 0) > 0, "\(figure.id) has no value for \(system.rawValue)")
            }
        }
        #expect(Set(report.targets.map(\.id)).count == 11)
        #expect((report.measurements.figure("preview.card100k")?.median(.shareLog) ?? 0) > 0)
        #expect(report.measurements.replayMemory.count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).isEmpty, "every store was removed")

        let decoded = try JSONDecoder().decode(BenchReport.self, from: try report.json())
        #expect(decoded.measurements.figures.count == report.measurements.figures.count)
        #expect(ReportTable.render(report).contains("fetch by id, 2 threads"))
        #expect(try SweepChart.write(report, to: directory.path) != nil)
        #expect(FileManager.default.fileExists(atPath: directory.appending("sweep.dat")))

        // The C-LMDB baseline does ShareLog's work byte for byte: a store it
        // filled and swept opens in ShareLog and verifies.
        let path = directory.appending("c-lmdb")
        let (store, names) = try await context.filledStore(
            .cLMDB, at: path, deck: CardDeck(mixed: true, pool: 20), parts: [.due(5), .live(15)],
            sweepAt: BenchTime.start + 2 * BenchTime.day)
        store.close()
        let shareLog = try ShareStore.open(at: path)
        let verification = try shareLog.verify()
        #expect(verification.isConsistent)
        #expect(verification.events == 25)
        let last = ShareLogBenchStore.recordNames(from: names).last!
        #expect(try shareLog.fetch(last, at: Timestamp(milliseconds: BenchTime.start)) != .notFound)
    }
}
