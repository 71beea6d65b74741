import Foundation

/// How busy some cores were over an interval, from /proc/stat's per-core
/// counters: whether a server's cores were saturated during a row (the
/// server was the limit) or its client's (the client was).
struct CoreUsage {
    /// Busy and total jiffies of each core, by core number.
    private let counters: [Int: (busy: UInt64, total: UInt64)]

    /// The counters now.
    init() {
        var counters: [Int: (UInt64, UInt64)] = [:]
        let text = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("cpu") && !line.hasPrefix("cpu ") {
            let fields = line.split(separator: " ")
            guard let core = Int(fields[0].dropFirst(3)) else { continue }
            let values = fields.dropFirst().compactMap { UInt64($0) }
            guard values.count >= 5 else { continue }
            // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
            let total = values.prefix(8).reduce(0, +)
            counters[core] = (total - values[3] - values[4], total)
        }
        self.counters = counters
    }

    /// The percentage of time `cores` were busy between `earlier` and this
    /// reading; nil for no cores.
    func busyPercent(since earlier: CoreUsage, cores: [Int]) -> Double? {
        var busy: UInt64 = 0, total: UInt64 = 0
        for core in cores {
            guard let now = counters[core], let then = earlier.counters[core] else { continue }
            busy += now.busy &- then.busy
            total += now.total &- then.total
        }
        return total > 0 ? 100 * Double(busy) / Double(total) : nil
    }
}
