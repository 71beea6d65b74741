import Foundation
import ShareClip
import ShareLog

/// Fuzzes App Clip links. The bytes, read as UTF-8 (invalid sequences become
/// U+FFFD), are parsed as a link for the standard domain; an accepted link's
/// record name must give a canonical link that parses back to it. The same
/// text is tried as a configured domain: an accepted domain must be the
/// lowercased text, and links built for it must parse with a parser for it.
enum LinkFuzzTarget {
    static let probeID = UUID(uuidString: "123e4567-e89b-12d3-a456-426614174000")!

    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        let text = String(decoding: input, as: UTF8.self)
        try checkDomain(text)
        switch Result(catching: { () throws(AppClipLinkError) in try AppClipLinkParser().parse(text) }) {
        case .success(let experience):
            let canonical = AppClipLinkBuilder().link(for: experience)
            let again = try? AppClipLinkParser().parse(canonical)
            try FuzzViolation.check(again == experience, "the canonical link \(canonical) does not parse back to \(experience)")
            return .accepted("\(experience)")
        case .failure(let error):
            try FuzzViolation.check(!error.description.isEmpty, "an AppClipLinkError has no description")
            return .rejected(error.description)
        }
    }

    private static func checkDomain(_ text: String) throws(FuzzViolation) {
        guard let domain = try? AppClipDomain(text) else { return }
        try FuzzViolation.check(domain.name == text.lowercased(), "domain \(text.debugDescription) is stored as \(domain.name)")
        let link = AppClipLinkBuilder(domain: domain).link(for: .share(recordName: probeID))
        let parsed = try? AppClipLinkParser(domains: [domain]).parse(link)
        try FuzzViolation.check(parsed == .share(recordName: probeID), "a link built for domain \(domain) does not parse: \(link)")
    }
}
