import Foundation
import ShareHTTP
import ShareLog

/// `share create --http BASE_URL --token-file F [--idempotency-key K]
/// [--ca-file F]`: the upload through a gateway's write API instead of a
/// write to the store (docs/HTTP.md "Retries"). Every file and value is
/// checked before anything is sent.
struct UploadOptions {
    let base: String
    let token: String
    let idempotencyKey: String
    let caFile: String?

    /// Nil without `--http`; the other options need it.
    ///
    /// - Throws: `CLIError.usage` for `--token-file` missing with `--http`,
    ///   or another option given without it, or `--token-file -` with the
    ///   card from standard input too (`cardSource` `-`); `.invalidInput` for a file
    ///   that holds no token (`TokenFile`) or a key the gateway would
    ///   refuse.
    init?(_ arguments: inout Arguments, cardSource: String) throws {
        let base = try arguments.option("http")
        let tokenFile = try arguments.option("token-file")
        let key = try arguments.option("idempotency-key")
        let caFile = try arguments.option("ca-file")
        guard let base else {
            if tokenFile != nil || key != nil || caFile != nil {
                throw CLIError.usage("--token-file, --idempotency-key and --ca-file go with --http")
            }
            return nil
        }
        guard let tokenFile else { throw CLIError.usage("--http needs --token-file F, a file holding the bearer token") }
        if tokenFile == "-", cardSource == "-" {
            throw CLIError.usage("the card and --token-file cannot both come from standard input; give one of them as a file")
        }
        let token = try TokenFile.read(tokenFile).text
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw CLIError.invalidInput("--ca-file: cannot read \(caFile); give a PEM file of certificate authorities")
        }
        // The gateway's own rule, so a key the CLI takes is one it takes.
        if let key, UploadIdentity.key(in: key) != key {
            throw CLIError.invalidInput("--idempotency-key: 1 to 255 visible ASCII characters, without quotes or backslashes")
        }
        self.base = base
        self.token = token
        idempotencyKey = key ?? UUID().uuidString.lowercased()
        self.caFile = caFile
    }

    /// Uploads `upload`, retrying as the client's policy says.
    ///
    /// - Throws: `CLIError.invalidInput` for a bad base URL or an answer
    ///   that refuses the card itself (400, 413, 415, 422); `.failure`
    ///   for every other refusal, or when every attempt failed.
    func send(_ upload: ShareUpload) throws -> ShareCreateCommand.Output {
        do {
            let share = try GatewayClient(options: GatewayClient.Options(caFile: caFile))
                .upload(upload, to: base, token: token, idempotencyKey: idempotencyKey)
            return ShareCreateCommand.Output(
                id: "\(share.recordName)", link: share.link, createdAt: share.createdAt.iso8601, expiresAt: share.expiresAt.iso8601,
                idempotencyKey: idempotencyKey)
        } catch {
            switch error {
            case .invalidURL: throw CLIError.invalidInput("--http: \(error)")
            case .uploadRefused(_, let status, _) where [400, 413, 415, 422].contains(status): throw CLIError.invalidInput("\(error)")
            default: throw CLIError.failure("\(error)")
            }
        }
    }
}
