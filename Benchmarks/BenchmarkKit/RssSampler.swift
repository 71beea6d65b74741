import CBaseline
import Foundation
import Synchronization

/// Samples the RssAnon of this process and of a peer every 5 ms on a thread
/// of its own, each sample tagged with the events the receiver has applied
/// by then, for the "RssAnon flat in the number of events" goal.
///
/// Reading two /proc files every 5 ms costs a few microseconds of one core.
final class RssSampler: Sendable {
    /// Events applied so far; the workload sets it as batches commit.
    let events = Atomic<Int>(0)
    private let peer: pid_t
    private let running = Atomic<Bool>(true)
    private let samples = Mutex<[(events: Int, own: Int, peer: Int)]>([])
    private let done = DispatchSemaphore(value: 0)
    /// RssAnon of each process when sampling began, KiB.
    let before: (own: Int, peer: Int)

    init(peer: pid_t) {
        self.peer = peer
        before = (Int(cb_rss_anon_kib()), ProcStatus.rssAnonKiB(of: peer) ?? 0)
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                sample()
                usleep(5000)
            }
            done.signal()
        }
    }

    private func sample() {
        guard let peerKiB = ProcStatus.rssAnonKiB(of: peer) else { return }
        let entry = (events.load(ordering: .relaxed), Int(cb_rss_anon_kib()), peerKiB)
        samples.withLock { $0.append(entry) }
    }

    /// Stops sampling (takes one last sample) and returns each process's
    /// trace: growth over `before`.
    func finish() -> (own: MemoryTrace, peer: MemoryTrace) {
        running.store(false, ordering: .relaxed)
        done.wait()
        sample()
        let taken = samples.withLock { $0 }
        return (
            MemoryTrace(system: .shareLog, beforeKiB: before.own, samples: taken.map { MemorySample(events: $0.events, rssAnonKiB: $0.own) }),
            MemoryTrace(system: .shareLog, beforeKiB: before.peer, samples: taken.map { MemorySample(events: $0.events, rssAnonKiB: $0.peer) }))
    }
}
