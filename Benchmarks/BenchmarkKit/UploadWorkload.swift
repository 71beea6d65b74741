import Foundation
import ShareLog

/// The upload workload (issue 32): the write API's `POST /v1/shares`, one
/// share per request under its own `Idempotency-Key`, driven by Debian's
/// `wrk` at each of `upload.clients` keep-alive connections against
/// `sharelog-bench http --write-api` (`UploadStage`), with a 9:1 card mix
/// of the pool in turn. In the same rounds, with the order rotated, the
/// anchors make `upload.anchorShares` shares of the same cards into fresh
/// durable stores, with as many creators as the row has clients: the
/// library's `create` (one share per call, a task per creator, whose
/// writes may share a commit as the gateway's uploads may) and SQLite's
/// one-per-commit insert (a thread and connection per creator), each in a
/// process of its own on the gateway's cores (`UploadAnchor`).
///
/// Per row and system: shares per second and CPU time per 1,000 shares;
/// for the gateway also `wrk`'s p50 and p99; for every LMDB store shares
/// per durable commit (from LMDB's transaction ids). Every upload must be
/// answered 201, and the gateway's store must hold a share for each.
public struct UploadWorkload: Workload {
    public let name = "upload"

    public init() {}

    /// The systems of a row, by the names their figures are recorded under.
    enum System: String, CaseIterable {
        case gateway = "ShareLog"
        case library
        case sqlite = "SQLite"
    }

    static func rowID(clients: Int) -> String { "upload.c\(clients)" }

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        guard let upload = context.configuration.upload, let most = upload.clients.max() else { return }
        let pinning = CPUPinning.detect()
        let deck = CardDeck(mixed: true, pool: context.configuration.cardPool)
        let storePath = context.storePath("upload", .shareLog)
        let filesPath = context.storePath("upload-files", .shareLog)
        defer { for path in [storePath, filesPath] { context.remove(path) } }

        // One thread per server core, as the HTTP workload's gateway: an
        // upload waits for its commit off those threads (`mayBlock`).
        context.progress("upload: starting the gateway (\(pinning.serverThreads) thread(s)); \(pinning.description)")
        let stage = try UploadStage(
            context: context, storePath: storePath, directory: filesPath, deck: deck, threads: pinning.serverThreads, pinning: pinning)
        defer { stage.stop() }
        context.progress("upload: warming up for \(upload.warmUpSeconds) s")
        var uploaded = try stage.upload(clients: most, seconds: upload.warmUpSeconds, tag: "warm", pinning: pinning).requests

        for round in 0..<upload.rounds {
            for clients in upload.clients {
                let shift = round % System.allCases.count
                for system in System.allCases[shift...] + System.allCases[..<shift] {
                    context.progress("upload: round \(round + 1), \(clients) client\(clients == 1 ? "" : "s"), \(system.rawValue)")
                    switch system {
                    case .gateway:
                        uploaded += try measureGateway(stage, clients: clients, round: round, upload, pinning, into: &measurements)
                    case .library, .sqlite:
                        try measureAnchor(system, clients: clients, upload, context, pinning, into: &measurements)
                    }
                }
            }
        }
        // Requests still in flight when a run ended are not counted by wrk,
        // but may have committed: up to one a connection.
        let held = try stage.shares()
        guard held >= uploaded, held <= uploaded + most * (1 + upload.rounds * upload.clients.count) else {
            throw BenchError.mismatch("the gateway's store holds \(held) shares for \(uploaded) uploads answered 201")
        }
    }

    /// One `wrk` run against the gateway; records its row.
    ///
    /// - Returns: the uploads answered.
    private func measureGateway(
        _ stage: UploadStage, clients: Int, round: Int, _ upload: UploadBenchConfiguration, _ pinning: CPUPinning,
        into measurements: inout Measurements
    ) throws -> Int {
        let id = Self.rowID(clients: clients)
        let commitsBefore = try stage.commitCount()
        let cpuBefore = ProcessTree.cpuSeconds(stage.processes)
        let run = try stage.upload(clients: clients, seconds: upload.seconds, tag: "r\(round)c\(clients)", pinning: pinning)
        let cpu = ProcessTree.cpuSeconds(stage.processes) - cpuBefore
        let commits = try stage.commitCount() - commitsBefore
        let name = System.gateway.rawValue
        measurements.record(id, title: Self.title(clients: clients), unit: "shares/s", higherIsBetter: true, systemName: name, value: run.requestsPerSecond)
        measurements.record(id + ".p50", title: "  upload latency p50 (wrk, closed loop)", unit: "ms", higherIsBetter: false,
                            comparable: false, systemName: name, value: run.p50)
        measurements.record(id + ".p99", title: "  upload latency p99 (wrk, closed loop)", unit: "ms", higherIsBetter: false,
                            comparable: false, systemName: name, value: run.p99)
        measurements.record(id + ".cpu", title: Self.cpuTitle, unit: "ms", higherIsBetter: false,
                            systemName: name, value: cpu * 1_000_000 / Double(run.requests))
        if commits > 0 {
            measurements.record(id + ".sharesPerCommit", title: "  shares per durable commit", unit: "shares", higherIsBetter: true,
                                comparable: false, systemName: name, value: Double(run.requests) / Double(commits))
        }
        return run.requests
    }

    /// `upload.anchorShares` shares by `clients` creators into a fresh
    /// durable store of `system`, in a process on the gateway's cores
    /// (`UploadAnchor`); records its row.
    private func measureAnchor(
        _ system: System, clients: Int, _ upload: UploadBenchConfiguration, _ context: BenchContext, _ pinning: CPUPinning,
        into measurements: inout Measurements
    ) throws {
        let benchSystem: BenchSystem = system == .library ? .shareLog : .sqlite
        let result = try UploadAnchor.measure(
            benchSystem, at: context.storePath("upload-anchor", benchSystem), count: upload.anchorShares, creators: clients,
            context: context, pinning: pinning, cores: pinning.server)
        let id = Self.rowID(clients: clients), shares = Double(upload.anchorShares)
        measurements.record(id, title: Self.title(clients: clients), unit: "shares/s", higherIsBetter: true,
                            systemName: system.rawValue, value: shares / result.seconds)
        measurements.record(id + ".cpu", title: Self.cpuTitle, unit: "ms", higherIsBetter: false,
                            systemName: system.rawValue, value: result.cpuSeconds * 1_000_000 / shares)
        if let commits = result.commits, commits > 0 {
            measurements.record(id + ".sharesPerCommit", title: "  shares per durable commit", unit: "shares", higherIsBetter: true,
                                comparable: false, systemName: system.rawValue, value: shares / Double(commits))
        }
    }

    /// The CPU rows: the gateway's process, or the anchor's while it
    /// creates.
    static let cpuTitle = "  CPU per 1,000 shares (the server's or the creating process's)"

    static func title(clients: Int) -> String {
        "one share per upload or create, \(clients) client\(clients == 1 ? "" : "s")"
    }
}
