import Foundation

/// Number formats of the table and progress lines.
enum Formatting {
    /// 1234567 as "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// A figure's value: grouped digits from 1,000 up, else three significant digits.
    static func value(_ value: Double) -> String {
        if value.magnitude >= 1000 { return grouped(Int(value.rounded())) }
        if value.magnitude >= 100 { return String(format: "%.0f", value) }
        if value.magnitude >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }

    /// A speed ratio, e.g. "0.84x".
    static func ratio(_ ratio: Double?) -> String {
        guard let ratio else { return "—" }
        return ratio >= 10 ? String(format: "%.0fx", ratio) : String(format: "%.2fx", ratio)
    }

    /// A share count as "10k" or "1M".
    static func count(_ value: Int) -> String {
        if value >= 1_000_000 && value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1000 && value % 1000 == 0 { return "\(value / 1000)k" }
        return String(value)
    }
}
