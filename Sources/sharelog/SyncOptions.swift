import Foundation
import ShareSync

/// The options `serve` and `sync` share: where, with which key, and the
/// session timings.
struct SyncOptions {
    let endpoint: Endpoint
    let key: SyncKey?
    /// The `--key-file` the key was read from, for `serve` to read again
    /// on SIGHUP.
    let keyFile: String?
    let session: SessionOptions

    /// Reads `--listen`/`--connect` (named by `endpointOption`), `--stdio`,
    /// `--key-file`, `--heartbeat` and `--peer-timeout`.
    ///
    /// A clip (`role` `.clip`) never holds the sync key, so it takes no
    /// `--key-file` and no `tcp:` endpoint (TLS there is keyed with it):
    /// both are usage errors, raised before any file is read.
    init(_ arguments: inout Arguments, endpointOption: String, role: SyncRole = .main) throws {
        if role == .clip, arguments.contains("key-file") { throw CLIError.usage(Self.clipKeyRefusal) }
        let stdio = arguments.flag("stdio")
        let text = try arguments.option(endpointOption)
        switch (text, stdio) {
        case (nil, false): throw CLIError.usage("give --\(endpointOption) unix:PATH or tcp:HOST:PORT, or --stdio")
        case (.some, true): throw CLIError.usage("give --\(endpointOption) or --stdio, not both")
        case (nil, true): endpoint = .stdio
        case (let text?, false): endpoint = try Self.endpoint(text, option: endpointOption)
        }
        keyFile = try arguments.option("key-file")
        if let keyFile {
            do { key = try SyncKey.load(from: keyFile) } catch { throw CLIError.invalidInput("--key-file: \(error)") }
        } else {
            key = nil
        }
        if case .tcp = endpoint, role == .clip {
            throw CLIError.usage(Self.clipTCPRefusal)
        }
        if case .tcp = endpoint, key == nil {
            throw CLIError.usage("TCP is encrypted with TLS under a shared key: give --key-file (make one with 'sharelog keygen FILE')")
        }
        var session = SessionOptions()
        // This side's heartbeat and how long it waits for the peer's are
        // separate: the peer's interval is the peer's own setting.
        if let seconds = try arguments.integer("heartbeat", in: 1...3600) { session.heartbeatInterval = .seconds(seconds) }
        if let seconds = try arguments.integer("peer-timeout", in: 1...86_400) { session.peerTimeout = .seconds(seconds) }
        // Allowed (the peer's heartbeat is the peer's own setting), but a
        // peer that keeps this side's interval would be given up between
        // two of its heartbeats.
        if session.peerTimeout <= session.heartbeatInterval {
            logEvent(
                "options.warning",
                "warning: --peer-timeout \(session.peerTimeout.components.seconds) is not above --heartbeat \(session.heartbeatInterval.components.seconds): "
                    + "a peer that sends a heartbeat as often as this side does is given up between two of them; keep it a few heartbeats above",
                .warning)
        }
        self.session = session
    }

    /// The options read here, with the endpoint's named `endpoint`
    /// (`listen` or `connect`).
    static func options(endpoint: String) -> [OptionSpec] {
        [
            .value(endpoint, "unix:PATH|tcp:HOST:PORT|exec:COMMAND", endpoint == "listen" ? "where to listen" : "the server to connect to"),
            .flag("stdio", endpoint == "listen" ? "serve one session over standard input and output (ssh)" : "sync over standard input and output"),
            .value("key-file", "F", "the shared sync key (sharelog keygen): TLS over TCP, and the proof a main gives"),
            .value("heartbeat", "5", "seconds of silence after which this side sends a heartbeat (1 to 3600)"),
            .value("peer-timeout", "20", "seconds without a byte from the peer before the session is given up (1 to 86400)"),
        ]
    }

    /// The endpoint `text` names, of the forms `--listen` (a socket to
    /// listen on) or `--connect` (a socket, or a command to talk to) takes;
    /// standard input and output are `--stdio`.
    ///
    /// - Throws: `CLIError.invalidInput` naming the forms this option takes.
    private static func endpoint(_ text: String, option: String) throws(CLIError) -> Endpoint {
        let forms = option == "listen" ? "unix:PATH or tcp:HOST:PORT (or --stdio)" : "unix:PATH, tcp:HOST:PORT or exec:COMMAND (or --stdio)"
        let endpoint: Endpoint
        do { endpoint = try Endpoint(parsing: text) } catch .unknownForm {
            throw .invalidInput("--\(option): '\(text)' is not an endpoint; use \(forms)")
        } catch {
            throw .invalidInput("--\(option): \(error)")
        }
        switch (endpoint, option) {
        case (.unix, _), (.tcp, _), (.command, "connect"): return endpoint
        case (.stdio, _): throw .invalidInput("--\(option): for standard input and output, give --stdio instead")
        case (.command, _): throw .invalidInput("--\(option): a command cannot be listened on; use \(forms)")
        }
    }

    /// Why a clip is refused `tcp:`, and what it uses instead.
    static let clipTCPRefusal =
        "a clip does not sync over tcp:, whose TLS is keyed with the replicas' sync key, and a clip never holds that key; "
        + "fetch the share over HTTPS from the HTTP gateway (sharelog http) with 'sharelog clip open LINK [--http BASE_URL]', "
        + "or use unix: or exec:"

    /// Why a clip is refused `--key-file`, and what it uses instead.
    static let clipKeyRefusal =
        "a clip never holds the sync key (--key-file): whoever took it from a clip could connect as a main replica and pull every card; "
        + "a clip fetches its share over HTTPS from the HTTP gateway (sharelog http) with 'sharelog clip open LINK [--http BASE_URL]', "
        + "which needs no key"
}

