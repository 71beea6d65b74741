import Dispatch
import Foundation
import ShareLog
import ShareSync
import TestSupport
import SharePrimitives

/// A `SyncServer` on a Unix socket in a temporary directory, serving from a
/// thread of this process, for tests of whole sessions without spawning
/// processes. `stop()` (also on deinit) ends it and waits for it, under a
/// deadline.
final class InProcessServer: @unchecked Sendable {
    // Safe: `endpoint` and `thread` are set in `init` before the server
    // thread starts and only read afterwards; `SessionContext` is Sendable.
    let endpoint: Endpoint
    let store: ShareStore
    private let context = SessionContext()
    private let finished = DispatchSemaphore(value: 0)
    let log = LogLines()

    init(store: ShareStore, directory: TemporaryDirectory, options: SessionOptions = SessionOptions()) throws {
        self.store = store
        endpoint = .unix(path: directory.appending("s.sock"))
        var configuration = SyncServerConfiguration(endpoint: endpoint)
        configuration.options = options
        let log = self.log
        configuration.log = { log.append($0.message) }
        let server = SyncServer(store: store, configuration: configuration)
        let ready = DispatchSemaphore(value: 0)
        let context = self.context, finished = self.finished
        Thread {
            do { try server.serve(context: context) { _ in ready.signal() } } catch { log.append("serve failed: \(error)"); ready.signal() }
            finished.signal()
        }.start()
        guard ready.wait(timeout: .now() + 30) == .success else { throw ServerDidNotStart() }
    }

    deinit { stop() }

    func stop() {
        context.stop()
        _ = finished.wait(timeout: .now() + 30)
        finished.signal()
    }
}

struct ServerDidNotStart: Error {}

/// Lines a server logged, kept for assertions. The lock is a pthread
/// mutex, which ThreadSanitizer sees (these tests also run under it).
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
