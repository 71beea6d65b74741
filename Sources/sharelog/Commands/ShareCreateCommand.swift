import Foundation
import ShareHTTP
import ShareLog

struct ShareCreateCommand: Command {
    static let name = "share create"
    static let synopsis = "share create FILE|- [--ttl 7d] [--http BASE_URL --token-file F [--idempotency-key K] [--ca-file F]]"
    static let summary =
        "Share the vCard in FILE (or standard input), in the store or through a gateway's write API (--http); print its id, link and expiry."

    struct Output: Encodable {
        let id: String
        let link: String
        let createdAt: String
        let expiresAt: String
        /// The key an upload through `--http` went under (absent otherwise):
        /// run again with it, and the gateway makes no second share.
        var idempotencyKey: String?
    }

    static let options: [OptionSpec] = [
        .value("ttl", "7d", "how long the share lives: a whole number of s, m, h or d, from 1 minute to 30 days"),
        .value("http", "BASE_URL", "upload through the write API of the gateway at BASE_URL instead of writing the store"),
        .value("token-file", "F", "with --http: a file holding the bearer token (sharelog token create)"),
        .value("idempotency-key", "K", "with --http: the upload's key (default: a new random one, printed with --json)"),
        .value("ca-file", "F", "with --http: a PEM file of certificate authorities to trust"),
    ]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let source = try arguments.positional("vCard file (or - for standard input)")
        let ttlText = try arguments.option("ttl") ?? "7d"
        let ttl = try TTL.parse(ttlText)
        let upload = try UploadOptions(&arguments, cardSource: source)
        try arguments.finish()
        // Checked here, where the unit the user gave is known (`0d`, not
        // the library's `0s`), before any file is read or store opened.
        guard ShareStore.ttlRange.contains(ttl) else { throw CLIError.invalidInput(ShareLogError.invalidTTLMessage(ttlText)) }
        let vCard = try readInput(source)
        let output: Output
        if let upload {
            output = try upload.send(ShareUpload(vCard: vCard, ttl: ttl))
        } else {
            let store = try context.openStore()
            defer { store.close() }
            let created = try store.create(vCard: vCard, ttl: ttl)
            output = Output(
                id: "\(created.recordName)", link: created.link, createdAt: created.createdAt.iso8601, expiresAt: created.expiresAt.iso8601)
        }
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("id:      \(output.id)")
        context.print("link:    \(output.link)")
        context.print("expires: \(output.expiresAt)")
        return ExitCode.success
    }

    /// The bytes of FILE, or of standard input for `-`.
    static func readInput(_ source: String) throws -> [UInt8] {
        if source == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: source) else {
            throw CLIError.invalidInput("cannot read '\(source)': no such readable file")
        }
        return Array(data)
    }
}
