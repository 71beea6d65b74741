import Foundation
import ShareHTTP

/// The bearer token in a token file, as `token import --token-file F`
/// reads it (docs/CLI.md "token import"). The file may hold:
///
/// - the token's text alone, with white space or a newline around it;
/// - what `token create` prints (`token create > F`): one line
///   `token:   TEXT` among the others, which are not read;
/// - what `token create --json` prints: one JSON object whose `token` is
///   the text.
///
/// Every message says what is wrong with the file without quoting it: the
/// file holds a secret, and an error line ends up in logs.
enum TokenFile {
    /// The most it reads: a token file is 64 characters, `token create`'s
    /// output a few hundred.
    static let maximumSize = 64 * 1024

    /// Reads the token in `path`, or standard input for `-`.
    ///
    /// - Throws: `CLIError.invalidInput`, naming the file and never quoting
    ///   it, for a file that cannot be read, is over `maximumSize`, is not
    ///   UTF-8, or does not hold exactly one token in one of the forms above.
    static func read(_ path: String) throws(CLIError) -> BearerToken {
        let source = path == "-" ? "standard input" : path
        let handle = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path)
        guard let handle, let data = try? handle.read(upToCount: maximumSize + 1) ?? Data() else {
            throw .invalidInput("--token-file: cannot read \(source); give a file holding the token that 'sharelog token create' printed")
        }
        if path != "-" { try? handle.close() }
        guard data.count <= maximumSize else {
            throw .invalidInput("--token-file: \(source) is larger than \(maximumSize) bytes, so it is not a token file")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .invalidInput("--token-file: \(source) is not UTF-8 text") }
        do {
            return try BearerToken(parsing: try candidate(in: text, source: source))
        } catch let error as BearerTokenError {
            throw .invalidInput("--token-file: \(source) holds no token: \(error)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw .invalidInput("--token-file: \(source) holds no token")
        }
    }

    /// The text in `text` that should be a token, by the file's form.
    private static func candidate(in text: String, source: String) throws(CLIError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw .invalidInput("--token-file: \(source) is empty; give a file holding the token that 'sharelog token create' printed")
        }
        if trimmed.hasPrefix("{") {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) as? [String: Any],
                  let token = object["token"] as? String
            else { throw .invalidInput("--token-file: \(source) holds JSON without a \"token\" string, as 'sharelog token create --json' prints") }
            return token
        }
        let lines = trimmed.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("token:") }
        guard !lines.isEmpty else { return trimmed }
        guard lines.count == 1 else {
            throw .invalidInput("--token-file: \(source) has \(lines.count) lines that start 'token:', not one; give one token")
        }
        return lines[0].dropFirst("token:".count).trimmingCharacters(in: .whitespaces)
    }
}
