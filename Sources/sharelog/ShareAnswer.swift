import Foundation
import ShareClip
import ShareLog

/// How `share get`, `clip open` and `clip last` show a share from the
/// store: its status and preview (or `--json`), the card itself with
/// `--vcard`, the photo with `--photo`, and the exit code for its status.
struct ShareAnswer {
    struct Output: Encodable {
        let id: String
        let status: String
        let link: String
        var createdAt: String?
        var expiresAt: String?
        var expiredAt: String?
        var reason: String?
        var preview: VCardPreview?
        /// Where the answer came from (`clip open`, `clip last`).
        var source: Source?
        /// With `--photo`: whether the photo was written.
        var photoWritten: Bool?
        /// With `--vcard --json`: the card itself.
        var vCard: String?
    }

    /// Where a clip's answer came from: a code in `--json`, a phrase in text.
    enum Source: String, Encodable {
        /// The server, just now (`clip open`).
        case server
        /// The clip's own store (`clip last`).
        case clipStore
        /// The clip's own store, because the server was unreachable (`clip open`).
        case clipStoreOffline

        var phrase: String {
            switch self {
            case .server: "the server, just now"
            case .clipStore: "this clip's store"
            case .clipStoreOffline: "this clip's store (the server was unreachable)"
            }
        }
    }

    var rawCard = false
    var photoPath: String?
    var source: Source?

    static let vCardOption = OptionSpec.flag("vcard", "print the raw vCard instead of the preview, ready for Contacts")
    static let photoOption = OptionSpec.value("photo", "FILE", "also write the card's decoded photo to FILE")

    /// Shows `name` as `store` holds it, and returns the exit code: 0 for a
    /// live share, 4 for one that ended (nothing of its card is shown).
    ///
    /// - Throws: `notFound` for a name the store does not hold; `expired`
    ///   when a card or photo was asked of an ended share.
    func show(_ name: RecordName, from store: ShareStore, _ context: Context) throws -> Int32 {
        let link = AppClipLinkBuilder(domain: context.domain).link(for: .share(recordName: name.uuid))
        switch try store.fetch(name) {
        case .notFound:
            throw ShareLogError.notFound(name)
        case .expired(let at, let reason):
            if rawCard || photoPath != nil { throw ShareLogError.expired(name, at: at, reason: reason) }
            try print(Output(id: "\(name)", status: "expired", link: link, expiredAt: at.iso8601, reason: "\(reason)", source: source), context)
            return ExitCode.expired
        case .live(let share):
            let preview = try VCardPreview(parsing: share.vCard)
            let photoWritten = try photoPath.map { path in try Self.savePhoto(of: preview, to: path) }
            if rawCard, !context.json {
                FileHandle.standardOutput.write(Data(share.vCard))
                return ExitCode.success
            }
            var output = Output(
                id: "\(name)", status: "live", link: link, createdAt: share.createdAt.iso8601, expiresAt: share.expiresAt.iso8601,
                preview: preview, source: source)
            output.photoWritten = photoWritten
            if rawCard { output.vCard = String(decoding: share.vCard, as: UTF8.self) }
            try print(output, context)
            return ExitCode.success
        }
    }

    /// Writes the card's photo to `path`; false, with a line on standard
    /// error, when the card has no readable photo: a broken photo never
    /// fails the command (its preview says why, in `warnings`).
    ///
    /// - Throws: `CLIError.failure` when the file cannot be written.
    static func savePhoto(of preview: VCardPreview, to path: String) throws -> Bool {
        guard let photo = preview.photo else {
            logEvent("share.photo.missing", "the card has no readable photo; nothing written to \(path)", .warning)
            return false
        }
        guard FileManager.default.createFile(atPath: path, contents: photo.bytes) else {
            throw CLIError.failure("cannot write the photo to \(path); the share itself is fine, and shown as asked")
        }
        return true
    }

    private func print(_ output: Output, _ context: Context) throws {
        if context.json { return try context.printJSON(output) }
        context.print("id:       \(output.id)")
        context.print("status:   \(output.status)")
        if let expiredAt = output.expiredAt { context.print("expired:  \(expiredAt) (\(output.reason ?? ""))") }
        if let expiresAt = output.expiresAt { context.print("expires:  \(expiresAt)") }
        context.print("link:     \(output.link)")
        if let source = output.source { context.print("source:   \(source.phrase)") }
        guard let preview = output.preview else { return }
        // The card's words are the sharer's: escaped, so that no field can
        // print a line of its own or drive the terminal.
        context.print("name:     \(preview.name.map(EscapedText.escaped) ?? "-")")
        context.print("title:    \(preview.title.map(EscapedText.escaped) ?? "-")")
        context.print("company:  \(preview.organization.map(EscapedText.escaped) ?? "-")")
        context.print("photo:    \(preview.photo.map { "\($0.mediaType.map(EscapedText.escaped) ?? "unknown type"), \($0.byteCount) bytes" } ?? "-")")
        for warning in preview.warnings { context.print("warning:  \(warning)") }
    }
}
