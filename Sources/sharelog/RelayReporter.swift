import Foundation
import ShareSync

/// Prints the relay's counts on standard error every 5 seconds while they
/// change, so an operator sees it work.
///
/// `@unchecked Sendable`: `stopped` is only touched under `lock`.
final class RelayReporter: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false

    init(statistics: RelayStatistics, context: SessionContext) {
        let thread = Thread { [self] in
            var last = statistics.current
            while !context.isStopping, !lock.withLock({ stopped }) {
                context.sleep(for: .seconds(5))
                let now = statistics.current
                guard now != last else { continue }
                last = now
                logLine("published \(now.published), received \(now.received) (\(now.applied) new), at sequence \(now.streamPosition), \(now.streamPending) pending")
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    func stop() { lock.withLock { stopped = true } }
}
