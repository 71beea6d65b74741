import TestSupport
import Foundation
import Glibc

/// The memory figures of a running process, read from `/proc/PID/status`
/// (proc(5)), in KiB.
struct ProcessMemory {
    /// `VmHWM`: the peak resident set size the kernel has seen, file pages
    /// (the store's memory map) included.
    let peakResidentKiB: Int
    /// `RssAnon`: the anonymous memory resident now (heap, stacks).
    let anonymousKiB: Int

    /// Reads the figures of `pid`; throws when the process is gone or the
    /// file lacks a field.
    init(of pid: pid_t) throws {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) throws -> Int {
            for line in text.split(separator: "\n") where line.hasPrefix("\(name):") {
                let words = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
                if words.count == 2, words[1] == "kB", let value = Int(words[0]) { return value }
            }
            throw HarnessFailure.unexpected("/proc/\(pid)/status has no \(name) in kB: \(text)")
        }
        peakResidentKiB = try field("VmHWM")
        anonymousKiB = try field("RssAnon")
    }
}
