import Glibc

/// Reads the output of a round's writers into the history and kills them.
/// Everything runs on the calling thread; every wait has a deadline.
struct WriterPump {
    private let writers: [WriterProcess]
    private var alive: Set<Int>
    /// Slots whose writer has printed `ready`.
    private(set) var ready: Set<Int> = []

    init(writers: [WriterProcess]) {
        self.writers = writers
        alive = Set(writers.map(\.slot))
    }

    /// Feeds the writers' lines to `history` until `deadline` passes or
    /// `done` holds.
    ///
    /// - Throws: `CrashViolation` when a writer exits by itself (an operation
    ///   failed: its error is on standard error) or prints an unreadable line.
    mutating func run(until deadline: ContinuousClock.Instant, history: inout CrashHistory,
                      done: (WriterPump) -> Bool) throws {
        while !done(self) {
            let remaining = deadline - .now
            guard remaining > .zero else { return }
            let live = writers.filter { alive.contains($0.slot) }
            for writer in live where writer.hasExited {
                try feed(writer.kill(), from: writer.slot, into: &history)
                alive.remove(writer.slot)
                throw CrashViolation("writer \(writer.slot) stopped by itself (\(writer.status)); see its error above")
            }
            var descriptors = live.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let wait = Int32(min(max(remaining.milliseconds, 0), 20))
            guard poll(&descriptors, nfds_t(descriptors.count), wait) > 0 else { continue }
            for (writer, descriptor) in zip(live, descriptors) where descriptor.revents != 0 && !writer.outputClosed {
                try feed(writer.readAvailable(), from: writer.slot, into: &history)
            }
        }
    }

    /// Kills the writer in `slot` and records its last lines and its death.
    mutating func kill(slot: Int, history: inout CrashHistory) throws {
        guard let writer = writers.first(where: { $0.slot == slot }), alive.remove(slot) != nil else { return }
        try feed(writer.kill(), from: slot, into: &history)
        history.writerDied(slot: slot)
    }

    /// Kills every writer still alive, for the error paths.
    mutating func killAll() {
        for writer in writers where alive.remove(writer.slot) != nil { _ = writer.kill() }
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
