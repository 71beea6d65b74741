import Dispatch
import Foundation
import Glibc
import SharePrimitives

/// Every process the demo starts, so that none outlives it: `stopAll()`
/// stops the ones still running when the demo ends, well or not, and
/// SIGINT or SIGTERM to the demo kills them before the demo exits. Each
/// pid also goes into the folder's marker, for a run that was killed with
/// SIGKILL (`DemoFolder`).
final class DemoChildren {
    private let folder: DemoFolder
    private var children: [DemoChild] = []
    /// The pids of the children, for the signal handler's thread.
    private let pids = Locked<Set<pid_t>>([])
    private var sources: [any DispatchSourceSignal] = []

    init(folder: DemoFolder) {
        self.folder = folder
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [pids] in
                for pid in pids.withLock({ $0 }) { kill(pid, SIGKILL) }
                FileHandle.standardError.write(Data("sharelog: demo stopped by signal \(number); its processes were stopped\n".utf8))
                _exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        stopAll()
        for source in sources { source.cancel() }
    }

    /// Starts `sharelog arguments…` as `label` (see `DemoChild`).
    func start(_ label: String, _ arguments: [String], outputPath: String? = nil) throws -> DemoChild {
        let child = try DemoChild(label, arguments, logs: folder.logs, outputPath: outputPath)
        folder.record(child.pid)
        children.append(child)
        pids.withLock { _ = $0.insert(child.pid) }
        return child
    }

    /// Runs `sharelog arguments…` to its end and returns its exit status
    /// and what it printed on standard output.
    func run(_ label: String, _ arguments: [String], outputPath: String? = nil, timeout: Duration = .seconds(60)) throws -> (status: Int32, output: String, errors: String) {
        let child = try start(label, arguments, outputPath: outputPath)
        let status = try child.finish(timeout: timeout)
        forget(child)
        return (status, child.output, child.errors)
    }

    /// Stops `child` (SIGTERM, then SIGKILL after `timeout`).
    func stop(_ child: DemoChild, timeout: Duration = .seconds(10)) {
        child.stop(timeout: timeout)
        forget(child)
    }

    /// Stops every child still running.
    func stopAll() {
        for child in children { child.stop(timeout: .seconds(10)) }
        children.removeAll()
        pids.withLock { $0.removeAll() }
    }

    private func forget(_ child: DemoChild) {
        children.removeAll { $0 === child }
        pids.withLock { _ = $0.remove(child.pid) }
    }
}
