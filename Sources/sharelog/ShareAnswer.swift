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
        /// Where the answer came from, when not the server just now (`clip open`).
        var source: String?
    }

    var rawCard = false
    var photoPath: String?
    var source: String?

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
            if rawCard {
                FileHandle.standardOutput.write(Data(share.vCard))
                return ExitCode.success
            }
            let preview = try VCardPreview(parsing: share.vCard)
            if let photoPath { try Self.savePhoto(of: preview, to: photoPath) }
            try print(Output(
                id: "\(name)", status: "live", link: link, createdAt: share.createdAt.iso8601, expiresAt: share.expiresAt.iso8601,
                preview: preview, source: source), context)
            return ExitCode.success
        }
    }

    static func savePhoto(of preview: VCardPreview, to path: String) throws {
        guard let photo = preview.photo else {
            throw CLIError.failure("the card has no readable photo; nothing written to \(path)")
        }
        guard FileManager.default.createFile(atPath: path, contents: photo.bytes) else {
            throw CLIError.failure("cannot write the photo to \(path)")
        }
    }

    private func print(_ output: Output, _ context: Context) throws {
        if context.json { return try context.printJSON(output) }
        context.print("id:       \(output.id)")
        context.print("status:   \(output.status)")
        if let expiredAt = output.expiredAt { context.print("expired:  \(expiredAt) (\(output.reason ?? ""))") }
        if let expiresAt = output.expiresAt { context.print("expires:  \(expiresAt)") }
        context.print("link:     \(output.link)")
        if let source = output.source { context.print("source:   \(source)") }
        guard let preview = output.preview else { return }
        context.print("name:     \(preview.name ?? "-")")
        context.print("title:    \(preview.title ?? "-")")
        context.print("company:  \(preview.organization ?? "-")")
        context.print("photo:    \(preview.photo.map { "\($0.mediaType ?? "unknown type"), \($0.byteCount) bytes" } ?? "-")")
        for warning in preview.warnings { context.print("warning:  \(warning)") }
    }
}
