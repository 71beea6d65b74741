import Glibc
import TestSupport

/// Reads the output of a round's writers into the history and kills them.
/// Everything runs on the calling thread; every wait has a deadline, so a
/// hung writer fails the run with a message instead of hanging it.
struct WriterPump {
    private let writers: [WriterProcess]
    private var alive: Set<Int>
    /// Slots whose writer has printed `ready`.
    private(set) var ready: Set<Int> = []

    /// The longest single `poll`, so a writer that exits is noticed soon.
    private static let pollSlice: Duration = .milliseconds(20)

    init(writers: [WriterProcess]) {
        self.writers = writers
        alive = Set(writers.map(\.slot))
    }

    /// Feeds the writers' lines to `history` for `duration`: the delay
    /// before a kill, while the writers go on.
    ///
    /// - Throws: `CrashViolation` when a writer exits by itself (an operation
    ///   failed: its error is on standard error) or prints an unreadable line.
    mutating func pump(for duration: Duration, history: inout CrashHistory) throws {
        let end = ContinuousClock.now + duration
        while case let remaining = end - .now, remaining > .zero {
            try step(waitingAtMost: remaining, history: &history)
        }
    }

    /// Feeds the writers' lines to `history` until every writer has printed
    /// `ready`.
    ///
    /// - Throws: `CrashViolation` naming the writers still not ready after
    ///   `timeout` (hung while opening the store), or for the reasons of
    ///   `pump(for:history:)`.
    mutating func waitUntilReady(timeout: Duration, history: inout CrashHistory) throws {
        let deadline = Deadline("every writer printed ready", timeout: timeout)
        while ready.count < writers.count {
            if deadline.hasPassed {
                let late = writers.map(\.slot).filter { !ready.contains($0) }
                throw CrashViolation("writers \(late) did not open the store within \(timeout) "
                    + "(no ready line): they hung, and were killed")
            }
            try step(waitingAtMost: Self.pollSlice, history: &history)
        }
    }

    /// Kills the writer in `slot` and records its last lines and its death.
    ///
    /// - Throws: `DeadlineExceeded` when the writer cannot be reaped.
    mutating func kill(slot: Int, history: inout CrashHistory) throws {
        guard let writer = writers.first(where: { $0.slot == slot }), alive.remove(slot) != nil else { return }
        try feed(try writer.kill(), from: slot, into: &history)
        history.writerDied(slot: slot)
    }

    /// Kills every writer still alive, for the error paths.
    mutating func killAll() {
        for writer in writers where alive.remove(writer.slot) != nil { _ = try? writer.kill() }
    }

    /// Waits up to `wait` (at most `pollSlice`) for output and feeds it.
    private mutating func step(waitingAtMost wait: Duration, history: inout CrashHistory) throws {
        let live = writers.filter { alive.contains($0.slot) }
        for writer in live where writer.hasExited {
            alive.remove(writer.slot)
            try feed(try writer.kill(), from: writer.slot, into: &history)
            throw CrashViolation("writer \(writer.slot) stopped by itself (\(writer.status)); see its error above")
        }
        var descriptors = live.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(min(max(wait.milliseconds, 0), Self.pollSlice.milliseconds))
        guard poll(&descriptors, nfds_t(descriptors.count), milliseconds) > 0 else { return }
        for (writer, descriptor) in zip(live, descriptors) where descriptor.revents != 0 && !writer.outputClosed {
            try feed(writer.readAvailable(), from: writer.slot, into: &history)
        }
    }

    private mutating func feed(_ lines: [String], from slot: Int, into history: inout CrashHistory) throws {
        for text in lines {
            guard let line = CrashLine(parsing: text) else {
                throw CrashViolation("writer \(slot) printed an unreadable line: \(text)")
            }
            if line.event == .ready { ready.insert(slot) }
            try history.record(line, slot: slot)
        }
    }
}
