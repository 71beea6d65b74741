import Foundation
import ShareLog
import ShareSync

/// Sync workload 5, the relay through NATS JetStream (issue 16), next to
/// direct sync. A real 3-server JetStream cluster on 127.0.0.1 (the
/// stream replicated 3 times, the relay's default) and `sharelog-bench
/// relay` peers, each making the calls `sharelog relay` makes
/// (`SyncPeer+Relay.swift`).
///
/// Throughput, in rounds with the order rotated:
/// - *relay*: a source store of `relayEvents` creations (1 KB cards, filled
///   as the catch-up workload fills) whose relay publishes them into a new
///   stream of the round, timed from its catching up with the empty stream
///   until the stream acknowledged the last; then, with that relay
///   stopped, a new, empty replica's relay, timed from its start (before
///   it connects) until its commit of the last event;
/// - *direct*: the same source store's catch-up by a new replica, pulling
///   from `sharelog-bench serve` as the catch-up workload does;
/// - *NATS alone*: the floor under the relay's catch-up
///   (`NatsCatchUpFloor`): a new consumer reading the round's stream with
///   the relay's libnats calls, and nothing else.
///
/// The source's relay publishes the round's stream first, timed on its
/// own; the three ways then take turns, their order rotated each round.
///
/// Delay (`RelayWorkload+Delay.swift`): shares created one at a time on a
/// replica, timed from the return of the durable create to the other
/// replica's durable commit, through the relay and through direct follow.
public struct RelayWorkload: Workload {
    public let name = "relay"

    public init() {}

    /// The ways of moving the events that each throughput round runs.
    enum Way: CaseIterable { case relay, direct, natsAlone }

    /// How long a relay may take over one step: to catch up, to publish or
    /// to apply a whole store.
    static let stepDeadline = Duration.seconds(300)

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        guard let count = context.configuration.relayEvents else { throw BenchError.mismatch("the configuration sets no relayEvents") }
        context.progress("relay: starting a 3-server NATS JetStream cluster on 127.0.0.1")
        let relay = try RelayBench(context: context)
        defer { relay.stop() }
        let messageBytes = try measureThroughput(count: count, relay, context, &measurements)
        try measureDelay(relay, messageBytes: messageBytes, context, &measurements)
    }

    /// - Returns: the mean size of the stream's messages, in bytes.
    private func measureThroughput(count: Int, _ relay: RelayBench, _ context: BenchContext, _ measurements: inout Measurements) throws -> Int {
        let configuration = context.configuration
        let deck = CardDeck(mixed: false, pool: configuration.cardPool)
        let bench = SyncBench(context: context)
        let source = context.storePath("relay-source", .shareLog)
        let receiver = context.storePath("relay-receiver", .shareLog)
        defer {
            for path in [source, receiver, RelayBench.keyPath(of: source), RelayBench.keyPath(of: receiver)] { context.remove(path) }
        }
        context.progress("relay: filling the source store with \(Formatting.grouped(count)) shares")
        let names = try bench.fillMain(at: source, deck: deck, count: count)
        // Made after the fill, whose progress line NatsLifelineTests kills
        // the benchmark at: in /tmp, outside the work directory.
        let sockets = try SyncBench.socketDirectory()
        defer { context.remove(sockets) }
        let shares = names.enumerated().map { (name: $0.element, card: deck.card($0.offset)) }
        try relay.copyKey(to: source)
        let server = try bench.startServer(store: source, socket: sockets + "/main.sock")
        defer { server.stop() }

        var messageBytes = 0
        for round in 0..<configuration.syncRounds {
            let stream = "BENCH-R\(round + 1)"
            context.progress("relay: round \(round + 1), publishing the source store into stream \(stream)")
            let publish = try Self.publishAll(count, from: source, through: stream, relay)
            measurements.record(
                "sync.relay.publish", title: "  the source's relay publishing them, until the stream acknowledged the last",
                unit: "events/s", higherIsBetter: true, system: .shareLog, value: Double(count) / publish)
            let shift = round % Way.allCases.count
            var rates: [Way: Double] = [:]
            for way in Way.allCases[shift...] + Way.allCases[..<shift] {
                context.remove(receiver)
                switch way {
                case .relay:
                    context.progress("relay: round \(round + 1), a new replica's relay applying stream \(stream)")
                    try relay.copyKey(to: receiver)
                    let apply = try Self.applyAll(count, into: receiver, from: stream, relay)
                    rates[.relay] = Double(count) / apply.seconds
                    measurements.record(
                        "sync.relay.catchup", title: "relay: catch-up of a new replica from the JetStream stream, 1 KB cards (durable)",
                        unit: "events/s", higherIsBetter: true, system: .shareLog, value: Double(count) / apply.seconds)
                    measurements.record(
                        "sync.relay.catchup.firstCommit", title: "  from its start to its first commit (connect, stream, consumer, first batch)",
                        unit: "ms", higherIsBetter: false, comparable: false, system: .shareLog, value: apply.firstCommit * 1000)
                    measurements.record(
                        "sync.relay.catchup.steady", title: "  from its first commit on (connected, its consumer made)",
                        unit: "events/s", higherIsBetter: true, comparable: false, system: .shareLog, value: apply.steadyRate)
                    cpu(&measurements, "sync.relay.catchup.cpuRelay", "  CPU per event: the new replica's relay process, start included",
                        apply.relayCPU)
                    cpu(&measurements, "sync.relay.catchup.cpuNats", "  CPU per event: the three nats-servers", apply.natsCPU)
                    measurements.record(
                        "sync.relay.catchup.held", title: "  shares the new replica holds live with their card, of \(Formatting.grouped(count))",
                        unit: "shares", higherIsBetter: true, comparable: false, system: .shareLog,
                        value: Double(try RelayBench.held(shares, in: receiver)))
                case .direct:
                    context.progress("relay: round \(round + 1), direct sync catch-up of the source store")
                    let cpuBefore = (own: ProcStatus.ownCPUSeconds(), server: ProcStatus.cpuSeconds(of: server.pid) ?? 0)
                    let outcome = try CatchUpWorkload.pull(count: count, from: sockets + "/main.sock", into: receiver, server: server)
                    let ownCPU = ProcStatus.ownCPUSeconds() - cpuBefore.own
                    let serverCPU = (ProcStatus.cpuSeconds(of: server.pid) ?? 0) - cpuBefore.server
                    rates[.direct] = Double(count) / outcome.seconds
                    measurements.record(
                        "sync.relay.catchup.direct", title: "  anchor: direct sync catch-up of the same store (sync --pull)",
                        unit: "events/s", higherIsBetter: true, system: .shareLog, value: Double(count) / outcome.seconds)
                    cpu(&measurements, "sync.relay.catchup.direct.cpuServer", "    CPU per event: the serving process", serverCPU / Double(count))
                    cpu(&measurements, "sync.relay.catchup.direct.cpuClient", "    CPU per event: the receiving process (this one)",
                        ownCPU / Double(count))
                case .natsAlone:
                    context.progress("relay: round \(round + 1), NATS alone: a new consumer reading stream \(stream)")
                    let settings = StreamSettings(name: stream, subjectPrefix: stream.lowercased())
                    let read = try NatsCatchUpFloor.read(count, of: settings, servers: relay.servers, timeout: .seconds(30))
                    rates[.natsAlone] = Double(count) / read.seconds
                    messageBytes = read.meanBodyBytes
                    measurements.record(
                        "sync.relay.catchup.natsAlone", title: "  floor: NATS alone, a new consumer reading the stream (no store, no decoding)",
                        unit: "events/s", higherIsBetter: true, comparable: false, system: .shareLog, value: Double(count) / read.seconds)
                    measurements.record(
                        "sync.relay.catchup.natsAlone.consumer", title: "    of which: connecting and making its consumer",
                        unit: "ms", higherIsBetter: false, comparable: false, system: .shareLog, value: read.consumerMade * 1000)
                }
            }
            if let direct = rates[.direct] {
                for (way, id, title) in [(Way.relay, "vsDirect", "relay"), (.natsAlone, "natsAlone.vsDirect", "NATS alone")] {
                    guard let rate = rates[way] else { continue }
                    measurements.record(
                        "sync.relay.catchup.\(id)", title: "  \(title) / direct sync, events/s in the same round", unit: "x",
                        higherIsBetter: true, comparable: false, system: .shareLog, value: rate / direct)
                }
            }
        }
        context.remove(receiver)
        return messageBytes
    }

    /// Records `seconds` of CPU per event as microseconds: a diagnostic, in
    /// clock ticks of 10 ms (coarse at small sizes).
    private func cpu(_ measurements: inout Measurements, _ id: String, _ title: String, _ seconds: Double) {
        measurements.record(id, title: title, unit: "µs", higherIsBetter: false, comparable: false, system: .shareLog, value: seconds * 1e6)
    }

    /// Runs the relay of the store at `source` on a new stream `stream`
    /// until the stream acknowledged all `count` of its events, then stops it.
    ///
    /// - Returns: the seconds from the relay's catching up with the empty
    ///   stream (when it starts publishing) to the acknowledgement of the last.
    static func publishAll(_ count: Int, from source: String, through stream: String, _ relay: RelayBench) throws -> Double {
        let publisher = try relay.startRelay(store: source, stream: stream, what: "the source's relay")
        defer { publisher.stop() }
        let publishing = try publisher.nextStamp("caught-up", skipping: ["started"], within: stepDeadline)
        let last = try publisher.stamp(when: "published", reaches: count, skipping: ["applied"], within: stepDeadline)
        return Double(last - publishing) * 1e-9
    }

    /// What a new replica's relay took to apply a stream.
    struct Applied {
        /// From the relay's start, before it connects to the cluster, to
        /// its commit of the last event.
        let seconds: Double
        /// From its start to its first commit.
        let firstCommit: Double
        /// Events/s from its first commit to its last (the events of every
        /// commit after the first); 0 when one commit held them all.
        let steadyRate: Double
        /// CPU seconds per event of the relay's process over its whole life,
        /// and of the cluster's servers from its start to its last commit.
        let relayCPU: Double
        let natsCPU: Double
    }

    /// Runs a relay on the new store at `path` until it has applied all
    /// `count` events of `stream`, then stops it.
    static func applyAll(_ count: Int, into path: String, from stream: String, _ relay: RelayBench) throws -> Applied {
        let natsBefore = relay.natsCPUSeconds()
        let receiver = try relay.startRelay(store: path, stream: stream, what: "the new replica's relay")
        defer { receiver.stop() }
        let started = try receiver.nextStamp("started", within: stepDeadline)
        let end = ContinuousClock.now + stepDeadline
        var first: (total: UInt64, stamp: UInt64)?
        while true {
            let numbers = try receiver.nextReport("applied", skipping: ["caught-up"], within: max(end - ContinuousClock.now, .zero))
            guard numbers.count == 2, numbers[0] <= count else {
                throw BenchError.mismatch("\(receiver.what) reports applied \(numbers), expected at most \(count)")
            }
            let (total, stamp) = (numbers[0], numbers[1])
            if first == nil { first = (total, stamp) }
            guard total == count, let first else { continue }
            let relayCPU = ProcStatus.cpuSeconds(of: receiver.pid) ?? 0
            let natsCPU = relay.natsCPUSeconds() - natsBefore
            return Applied(
                seconds: Double(stamp - started) * 1e-9, firstCommit: Double(first.stamp - started) * 1e-9,
                steadyRate: stamp > first.stamp ? Double(total - first.total) / (Double(stamp - first.stamp) * 1e-9) : 0,
                relayCPU: relayCPU / Double(count), natsCPU: natsCPU / Double(count))
        }
    }
}
