import Foundation
import ShareSync

/// The options `serve` and `sync` share: where, with which key, and the
/// session timings.
struct SyncOptions {
    let endpoint: Endpoint
    let key: SyncKey?
    let session: SessionOptions

    /// Reads `--listen`/`--connect` (named by `endpointOption`), `--stdio`,
    /// `--key-file`, `--heartbeat` and `--peer-timeout`.
    init(_ arguments: inout Arguments, endpointOption: String) throws {
        let stdio = arguments.flag("stdio")
        let text = try arguments.option(endpointOption)
        switch (text, stdio) {
        case (nil, false): throw CLIError.usage("give --\(endpointOption) unix:PATH or tcp:HOST:PORT, or --stdio")
        case (.some, true): throw CLIError.usage("give --\(endpointOption) or --stdio, not both")
        case (nil, true): endpoint = .stdio
        case (let text?, false):
            do { endpoint = try Endpoint(parsing: text) } catch { throw CLIError.invalidInput("--\(endpointOption): \(error)") }
        }
        if let path = try arguments.option("key-file") {
            do { key = try SyncKey.load(from: path) } catch { throw CLIError.invalidInput("--key-file: \(error)") }
        } else {
            key = nil
        }
        if case .tcp = endpoint, key == nil {
            throw CLIError.usage("TCP is encrypted with TLS under a shared key: give --key-file (make one with 'sharelog keygen FILE')")
        }
        var session = SessionOptions()
        // This side's heartbeat and how long it waits for the peer's are
        // separate: the peer's interval is the peer's own setting.
        if let seconds = try arguments.integer("heartbeat", in: 1...3600) { session.heartbeatInterval = .seconds(seconds) }
        if let seconds = try arguments.integer("peer-timeout", in: 1...86_400) { session.peerTimeout = .seconds(seconds) }
        self.session = session
    }
}

/// One line on standard error, for servers and following clients.
func logLine(_ line: String) {
    FileHandle.standardError.write(Data("sharelog: \(line)\n".utf8))
}
