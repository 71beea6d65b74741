/// Prometheus's text exposition format, version 0.0.4: per family a
/// `# HELP` line, a `# TYPE` line, then one line per sample,
/// `name{label="value",…} value`. Help text escapes `\` and newlines; label
/// values escape `\`, `"` and newlines. Values are Go-parsable floats:
/// integers without a fraction, `+Inf`, `-Inf`, `NaN`.
public enum TextExposition {
    /// The `Content-Type` of the format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition of `families`, in their order.
    public static func render(_ families: [any MetricFamily]) -> String {
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(escapedHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.type.rawValue)\n"
            for sample in family.samples() {
                text += family.name + sample.suffix
                if !sample.labels.isEmpty {
                    text += "{" + sample.labels.map { "\($0.name)=\"\(escapedLabelValue($0.value))\"" }.joined(separator: ",") + "}"
                }
                text += " " + number(sample.value) + "\n"
            }
        }
        return text
    }

    /// `value` as the format writes it: `3`, not `3.0`, for a whole number
    /// below 2^53, so counters read as the integers they are.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escapedHelp(_ text: String) -> String {
        text.replacingAll(["\\": "\\\\", "\n": "\\n"])
    }

    static func escapedLabelValue(_ text: String) -> String {
        text.replacingAll(["\\": "\\\\", "\"": "\\\"", "\n": "\\n"])
    }
}

extension String {
    /// Each character that is a key of `replacements` replaced by its value,
    /// in one pass (so a replacement is never replaced again).
    /// Works on scalars, not characters: `"\r\n"` is one `Character`, and
    /// its `\n` must still be escaped.
    fileprivate func replacingAll(_ replacements: [Unicode.Scalar: String]) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let replacement = replacements[scalar] { result += replacement } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
