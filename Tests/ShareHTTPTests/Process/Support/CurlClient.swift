import Foundation
import TestSupport

/// One HTTP answer as Debian's curl printed it with `--include`: the
/// status line, the header fields in order, and the body.
struct CurlAnswer: Sendable {
    let status: Int
    let statusLine: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The value of the only field named `name` (case-insensitive); nil
    /// when there is none. Two fields of that name read as both, joined by
    /// ", ", so a duplicate shows in an expectation.
    func header(_ name: String) -> String? {
        let values = self.values(name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Every value of the fields named `name`, in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The field names, lowercased, in order.
    var names: [String] { headers.map { $0.name.lowercased() } }
}

/// Debian's `/usr/bin/curl`, run as a user would, with a deadline: every
/// call bounds curl itself (`--max-time`) and the process (`Subprocess`).
enum CurlClient {
    static let executable = "/usr/bin/curl"

    /// Runs `curl arguments…` to its end; the result holds what it printed.
    static func run(_ arguments: [String], timeout: Duration = .seconds(20)) throws -> CLIResult {
        let bound = String(timeout.components.seconds)
        return CLIResult(try Subprocess.run(executable, ["--silent", "--show-error", "--max-time", bound] + arguments, timeout: timeout + .seconds(5)))
    }

    /// `curl --include options… url`: one answer. `HEAD` (`--head`) and 304
    /// answers have no body. Throws when curl fails or prints no answer.
    static func fetch(_ url: String, _ options: [String] = [], timeout: Duration = .seconds(20)) throws -> CurlAnswer {
        let head = options.contains("--head") || options.contains("-I")
        let answers = try fetchAll([url], options, bodiless: head, timeout: timeout)
        guard answers.count == 1 else { throw HarnessFailure.unexpected("curl \(url) printed \(answers.count) answers") }
        return answers[0]
    }

    /// `curl --include options… url…`: one answer per URL, in order, all on
    /// the connections curl chooses (one, when it reuses it).
    static func fetchAll(_ urls: [String], _ options: [String] = [], bodiless: Bool = false, timeout: Duration = .seconds(20)) throws -> [CurlAnswer] {
        let ran = try run(["--include"] + options + urls, timeout: timeout)
        guard ran.succeeded else { throw HarnessFailure.failed("curl \(options + urls)", status: ran.status, log: ran.error) }
        return try parse(ran.output, bodiless: bodiless)
    }

    /// Splits curl's `--include` output into answers: a status line,
    /// fields up to an empty line, then `Content-Length` bytes of body
    /// (none for `HEAD` and 304).
    static func parse(_ output: [UInt8], bodiless: Bool) throws -> [CurlAnswer] {
        var answers: [CurlAnswer] = []
        var rest = output[...]
        let blank = Array("\r\n\r\n".utf8)
        while !rest.isEmpty {
            guard let end = rest.indices.first(where: { rest[$0...].starts(with: blank) }) else {
                throw HarnessFailure.unexpected("curl printed a header without its end: \(String(decoding: rest, as: UTF8.self))")
            }
            let lines = String(decoding: rest[..<end], as: UTF8.self).components(separatedBy: "\r\n")
            rest = rest[(end + blank.count)...]
            let statusLine = lines[0]
            let parts = statusLine.split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
                throw HarnessFailure.unexpected("curl printed no status line but \(statusLine)")
            }
            let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? rest.count
            let bodyLength = bodiless || status == 304 ? 0 : min(length, rest.count)
            let body = Array(rest.prefix(bodyLength))
            rest = rest.dropFirst(bodyLength)
            answers.append(CurlAnswer(status: status, statusLine: statusLine, headers: headers, body: body))
        }
        return answers
    }
}
