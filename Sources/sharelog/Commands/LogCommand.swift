import ShareLog

struct LogCommand: Command {
    static let name = "log"
    static let synopsis = "log [--after POSITION] [--limit N]"
    static let summary = "Print log entries after a log position, in order; one JSON object per line with --json."

    struct Line: Encodable {
        let position: UInt64
        let origin: String
        let originCounter: UInt64
        var kind: String
        var id: String?
        var createdAt: String?
        var expiresAt: String?
        var vCardBytes: Int?
        var redacted: Bool?
        var at: String?
        var reason: String?
        var code: UInt8?
        let size: Int
    }

    static let options: [OptionSpec] = [
        .value("after", "POSITION", "print the entries after this log position (default: 0, the start)"),
        .value("limit", "N", "print at most N entries"),
    ]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let after = try arguments.option("after").map { text throws(CLIError) -> UInt64 in
            guard let value = UInt64(text) else { throw .invalidInput("--after must be a log position (a whole number), not '\(text)'") }
            return value
        } ?? 0
        let limit = try arguments.integer("limit", in: 1...Int.max) ?? Int.max
        try arguments.finish()
        let store = try context.openStoreToRead(for: Self.name)
        var cursor = after, printed = 0
        while printed < limit {
            let chunk = try store.events(after: cursor, limit: min(1000, limit - printed))
            guard let last = chunk.last else { break }
            for logged in chunk {
                let line = Self.line(for: logged)
                if context.json { try context.printJSON(line) } else { context.print(text(line)) }
            }
            printed += chunk.count
            cursor = last.position
        }
        return ExitCode.success
    }

    static func line(for logged: LoggedEvent) -> Line {
        let id = logged.event.id
        var line = Line(position: logged.position, origin: "\(id.origin)", originCounter: id.counter, kind: "unknown", size: logged.size)
        switch logged.event.kind {
        case .shareCreated(let created):
            line.kind = "shareCreated"
            line.id = "\(created.recordName)"
            line.createdAt = created.createdAt.iso8601
            line.expiresAt = created.expiresAt.iso8601
            line.vCardBytes = created.vCard?.count ?? 0
            line.redacted = created.vCard == nil
        case .shareExpired(let expired):
            line.kind = "shareExpired"
            line.id = "\(expired.recordName)"
            line.at = expired.at.iso8601
            line.reason = "\(expired.reason)"
        case .unknown(let code, _, _):
            line.code = code
        }
        return line
    }

    static func text(_ line: Line) -> String {
        switch line.kind {
        case "shareCreated":
            "\(line.position)\tshareCreated\t\(line.id ?? "")\texpires \(line.expiresAt ?? "")\t\(line.redacted == true ? "redacted" : "\(line.vCardBytes ?? 0) bytes")"
        case "shareExpired":
            "\(line.position)\tshareExpired\t\(line.id ?? "")\tat \(line.at ?? "")\t\(line.reason ?? "")"
        default:
            "\(line.position)\tunknown kind \(line.code ?? 0)\t\(line.size) bytes"
        }
    }
}
