import Foundation
import ShareClip
import ShareLog

struct ShareGetCommand: Command {
    static let name = "share get"
    static let synopsis = "share get ID|LINK [--vcard] [--photo FILE]"
    static let summary = "Print a share's status, expiry and preview; --vcard prints the card, --photo saves its photo."

    struct Output: Encodable {
        let id: String
        let status: String
        let link: String
        var createdAt: String?
        var expiresAt: String?
        var expiredAt: String?
        var reason: String?
        var preview: VCardPreview?
    }

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let target = try arguments.positional("share id or link")
        let rawCard = arguments.flag("vcard")
        let photoPath = try arguments.option("photo")
        try arguments.finish()
        let store = try context.openStore()
        let name = try recordName(target, store: store)
        let link = AppClipLinkBuilder(domain: context.domain).link(for: .share(recordName: name.uuid))
        switch try store.fetch(name) {
        case .notFound:
            throw ShareLogError.notFound(name)
        case .expired(let at, let reason):
            if rawCard || photoPath != nil { throw ShareLogError.expired(name, at: at, reason: reason) }
            let output = Output(id: "\(name)", status: "expired", link: link, expiredAt: at.iso8601, reason: "\(reason)")
            try show(output, context)
            return ExitCode.expired
        case .live(let share):
            if rawCard {
                FileHandle.standardOutput.write(Data(share.vCard))
                return ExitCode.success
            }
            let preview = try VCardPreview(parsing: share.vCard)
            if let photoPath { try savePhoto(of: preview, to: photoPath) }
            let output = Output(
                id: "\(name)", status: "live", link: link, createdAt: share.createdAt.iso8601,
                expiresAt: share.expiresAt.iso8601, preview: preview)
            try show(output, context)
            return ExitCode.success
        }
    }

    /// A record name, or the one an App Clip link points to.
    static func recordName(_ target: String, store: ShareStore) throws -> RecordName {
        if target.contains("://") { return try store.recordName(fromLink: target) }
        guard let name = RecordName(target) else { throw ShareLogError.invalidRecordName(target) }
        return name
    }

    static func savePhoto(of preview: VCardPreview, to path: String) throws {
        guard let photo = preview.photo else {
            throw CLIError.failure("the card has no readable photo; nothing written to \(path)")
        }
        guard FileManager.default.createFile(atPath: path, contents: photo.bytes) else {
            throw CLIError.failure("cannot write the photo to \(path)")
        }
    }

    static func show(_ output: Output, _ context: Context) throws {
        if context.json { return try context.printJSON(output) }
        context.print("id:       \(output.id)")
        context.print("status:   \(output.status)")
        if let expiredAt = output.expiredAt { context.print("expired:  \(expiredAt) (\(output.reason ?? ""))") }
        if let expiresAt = output.expiresAt { context.print("expires:  \(expiresAt)") }
        context.print("link:     \(output.link)")
        guard let preview = output.preview else { return }
        context.print("name:     \(preview.name ?? "-")")
        context.print("title:    \(preview.title ?? "-")")
        context.print("company:  \(preview.organization ?? "-")")
        context.print("photo:    \(preview.photo.map { "\($0.mediaType ?? "unknown type"), \($0.byteCount) bytes" } ?? "-")")
        for warning in preview.warnings { context.print("warning:  \(warning)") }
    }
}
