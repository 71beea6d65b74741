import Foundation

/// Proactive content negotiation on `Accept` (RFC 9110 §12.5.1) among the
/// gateway's `Representation`s.
///
/// Each representation takes the quality of the most specific media range
/// that matches it (`type/subtype` over `type/*` over `*/*`). The highest
/// quality above 0 wins, ties going to the page, then the vCard, the JSON
/// record and the events. An `Accept` that matches none of them, or none
/// at all, gets the page: a person's browser must always see something.
/// Only an `Accept` that refuses the page outright (`q=0` on a range that
/// matches `text/html`) and accepts nothing else of ours gets nil: 406.
///
/// Malformed parts (a range without `/`, a bad `q`) are skipped, as a
/// lenient server would; cost O(length of the field).
public struct AcceptHeader: Sendable {
    /// The quality the most specific range gave each representation; absent
    /// when no range matched it.
    private var qualities: [Representation: (quality: Int, specificity: Int)] = [:]

    /// Parses an `Accept` field value.
    public init(_ value: String) {
        for element in value.split(separator: ",") {
            let parameters = element.split(separator: ";")
            guard let range = parameters.first?.trimmingWhitespace().lowercased() else { continue }
            let parts = range.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { continue }
            var quality = 1000
            for parameter in parameters.dropFirst() {
                let pair = parameter.trimmingWhitespace()
                guard pair.lowercased().hasPrefix("q=") else { continue }
                guard let parsed = Self.quality(pair.dropFirst(2)) else { quality = -1; break }
                quality = parsed
            }
            guard quality >= 0 else { continue }
            let specificity = parts[0] == "*" ? (parts[1] == "*" ? 0 : -1) : (parts[1] == "*" ? 1 : 2)
            guard specificity >= 0 else { continue }
            for representation in Representation.allCases {
                let (type, subtype) = Self.split(representation.mediaType)
                let matches = specificity == 0 || (parts[0] == type && (specificity == 1 || parts[1] == subtype))
                guard matches else { continue }
                if let known = qualities[representation], known.specificity > specificity { continue }
                if let known = qualities[representation], known.specificity == specificity, known.quality >= quality { continue }
                qualities[representation] = (quality, specificity)
            }
        }
    }

    /// The representation to send, or nil when the client refused every one (406).
    public var preferred: Representation? {
        var best: (Representation, Int)?
        for representation in Representation.allCases {
            guard let quality = qualities[representation]?.quality, quality > 0 else { continue }
            if best == nil || quality > best!.1 { best = (representation, quality) }
        }
        if let best { return best.0 }
        return qualities[.page] == nil ? .page : nil
    }

    /// The representation for a request with `accept` (nil: no field).
    public static func negotiate(_ accept: String?) -> Representation? {
        guard let accept else { return .page }
        return AcceptHeader(accept).preferred
    }

    /// A qvalue (RFC 9110 §12.4.2) in thousandths, or nil when malformed.
    private static func quality(_ text: Substring) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let thousandths = Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
        let value = (whole == "1" ? 1000 : 0) + thousandths
        return value <= 1000 ? value : nil
    }

    private static func split(_ mediaType: String) -> (Substring, Substring) {
        let parts = mediaType.split(separator: "/")
        return (parts[0], parts[1])
    }
}
