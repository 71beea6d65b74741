import Foundation
import ShareLog
import SharePrimitives
import ShareSync

/// Prints the relay's counts on standard error every 5 seconds while they
/// change, so an operator sees it work, until `stop()` or the context
/// stops.
final class RelayReporter: Sendable {
    private let stopped = Locked(false)

    init(statistics: RelayStatistics, context: SessionContext) {
        let thread = Thread { [self] in
            var last = statistics.current
            while !context.isStopping, !stopped.withLock({ $0 }) {
                context.sleep(for: .seconds(5))
                let now = statistics.current
                guard now != last else { continue }
                last = now
                logEvent(
                    "relay.progress",
                    "published \(now.published), received \(now.received) (\(now.applied) new), at sequence \(now.streamPosition), \(now.streamPending) pending",
                    .info,
                    [("published", LogValue(now.published)), ("received", LogValue(now.received)), ("applied", LogValue(now.applied)),
                     ("sequence", LogValue(now.streamPosition)), ("pending", LogValue(now.streamPending))])
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    func stop() { stopped.withLock { $0 = true } }
}
