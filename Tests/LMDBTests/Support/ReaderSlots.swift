import Foundation
import Glibc
import TestSupport
@testable import LMDB

/// The reader table of an environment as Debian's `mdb_stat -r` prints it
/// from another process: an oracle that shares no code with the wrapper.
///
/// `mdb_stat -r` prints `Reader Table Status`, then either
/// `(no active readers)` or a header (`pid thread txnid`) and one line per
/// taken slot: the owner's pid, its thread in hex, and the snapshot's
/// transaction id, or `-` while the slot holds none (a reset transaction).
struct ReaderSlots {
    /// One taken slot.
    struct Slot: Equatable {
        let pid: Int32
        /// The snapshot's transaction id, or nil for `-`.
        let snapshot: Int?
    }

    let slots: [Slot]

    static let tool = "/usr/bin/mdb_stat"

    /// Runs `mdb_stat -r directory` and parses what it prints.
    init(of directory: String) throws {
        let outcome = try Subprocess.run(Self.tool, ["-r", directory])
        let text = String(decoding: outcome.output, as: UTF8.self)
        // mdb_stat 0.9.24 exits 1 after `-r` even when it printed the table
        // (it returns what the last fputs returned), so the text decides.
        guard !outcome.signaled, text.hasPrefix("Reader Table Status\n") else {
            throw Unreadable(text: text + String(decoding: outcome.error, as: UTF8.self))
        }
        var slots: [Slot] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if line == "Reader Table Status" || line == "(no active readers)" || fields == ["pid", "thread", "txnid"] {
                continue
            }
            guard fields.count == 3, let pid = Int32(fields[0]), fields[2] == "-" || Int(fields[2]) != nil else {
                throw Unreadable(text: text)
            }
            slots.append(Slot(pid: pid, snapshot: Int(fields[2])))
        }
        self.slots = slots
    }

    /// The slots this process holds.
    var ours: [Slot] { slots.filter { $0.pid == getpid() } }

    struct Unreadable: Error, CustomStringConvertible {
        let text: String
        var description: String { "unexpected output from mdb_stat -r:\n\(text)" }
    }
}

/// Runs `depth` reads of `env`, each inside the one before, on this thread,
/// and `innermost` inside the last: `depth` transactions live at once.
func nestedReads<R>(_ depth: Int, of env: Environment, innermost: () throws -> R) throws -> R {
    if depth == 0 { return try innermost() }
    return try env.read { _ in try nestedReads(depth - 1, of: env, innermost: innermost) }
}
