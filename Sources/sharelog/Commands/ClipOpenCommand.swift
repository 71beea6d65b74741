import Foundation
import ShareClip
import ShareHTTP
import ShareLog
import ShareSync

struct ClipOpenCommand: Command {
    static let name = "clip open"
    static let synopsis = "clip open LINK [--http BASE_URL] [--ca-file F] | --connect unix:PATH|exec:COMMAND [--vcard] [--photo FILE]"
    static let summary =
        "The clip's first launch: parse the link, fetch that one share over HTTPS from the link's host (or BASE_URL, or a sync server) into this store, show it."

    static let options: [OptionSpec] = [
        .value("http", "BASE_URL", "fetch from this gateway instead of the link's host (same path and query)"),
        .value("ca-file", "F", "trust the certificate authorities in this PEM file for HTTPS"),
        .value("connect", "unix:PATH|exec:COMMAND", "fetch over sync from this server instead of over HTTP(S)"),
        ShareAnswer.vCardOption, ShareAnswer.photoOption,
        // Declared only to be refused with the reason (a clip never holds the key).
        .value("key-file", "F", "refused: a clip never holds the sync key", hidden: true),
    ]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let link = try arguments.positional("App Clip link")
        // A clip never holds the sync key, however it fetches.
        if arguments.contains("key-file") { throw CLIError.usage(SyncOptions.clipKeyRefusal) }
        let base = try arguments.option("http")
        let caFile = try arguments.option("ca-file")
        let connect = try arguments.option("connect")
        if connect != nil, base != nil || caFile != nil {
            throw CLIError.usage("--connect fetches over sync, --http over HTTP(S) with --ca-file: give one way")
        }
        let server = try connect.map(Self.server)
        var answer = ShareAnswer(rawCard: arguments.flag("vcard"), photoPath: try arguments.option("photo"))
        try arguments.finish()
        // The link first, with the exact-domain parser: a bad one touches nothing.
        let name: RecordName
        do {
            switch try AppClipLinkParser(domains: [context.domain]).parse(link) {
            case .share(let uuid): name = RecordName(uuid: uuid)
            }
        } catch {
            throw ShareLogError.invalidLink(error)
        }
        let fetch = try server.map(Fetch.sync) ?? httpFetch(link: link, base: base, caFile: caFile)
        // No store is made for nothing: over HTTP(S) the answer comes before
        // any store is opened; over sync a missing store is made only once
        // the server has accepted the session (a typo in the endpoint, of
        // any form, leaves none).
        let existed = context.storeExists
        var failure: (any Error)?
        let store: ShareStore
        switch fetch {
        case .http(let client, let url):
            var answered: GatewayAnswer?
            do { answered = try client.fetch(name, from: url) } catch { failure = error }
            if !existed, let failure { throw Self.neverHeld(name, failure) }
            if !existed, answered == .unknown { throw Self.unknown(name) }
            store = try context.openStore(creatingIfMissing: true)
            if failure == nil, let events = answered?.events, !events.isEmpty { try store.apply(events) }
        case .sync(let server):
            let source = try context.syncStore()
            do { try syncFetch(name, from: server, into: source) } catch { failure = error }
            if let failure, source.store == nil { throw Self.neverHeld(name, failure) }
            // A session that succeeded was accepted, which made the store.
            store = source.store!
        }
        if let failure {
            // Offline: the clip's own store answers when it holds the share.
            guard try store.fetch(name) != .notFound else { throw Self.neverHeld(name, failure) }
            logEvent("clip.offline", "the server is unreachable (\(failure)); answering from this clip's own store", .warning)
            answer.source = .clipStoreOffline
        } else {
            answer.source = .server
        }
        // The server answered, and does not know the share: say so, not
        // that this store lacks it (the clip did ask).
        guard try store.fetch(name) != .notFound else { throw Self.unknown(name) }
        try store.recordShown(name)
        // A share that has ended by this clip's clock keeps no card here,
        // even one the server sent because its own clock had it live still.
        if case .expired = try store.fetch(name) {
            try store.sweep()
            try store.compact()
        }
        return try answer.show(name, from: store, context)
    }

    /// The sync server of `--connect`: a Unix socket or a command. Not
    /// `tcp:`, whose TLS is keyed with the replicas' key, nor standard
    /// input and output, which are this clip's terminal.
    private static func server(_ text: String) throws -> Endpoint {
        let endpoint: Endpoint
        do { endpoint = try Endpoint(parsing: text) } catch { throw CLIError.invalidInput("--connect: \(error)") }
        switch endpoint {
        case .unix, .command: return endpoint
        case .tcp: throw CLIError.usage(SyncOptions.clipTCPRefusal)
        case .stdio: throw CLIError.usage("--connect: a clip fetches over sync from unix:PATH or exec:COMMAND, not standard input and output")
        }
    }

    /// Where `clip open` fetches from.
    private enum Fetch {
        /// One request (`GatewayClient`): the link itself, or its path on `--http`.
        case http(GatewayClient, GatewayURL)
        /// A clip session with a sync server (`--connect`).
        case sync(Endpoint)
    }

    /// The sync fetch: a clip session, one `fetch` and its `records`.
    private static func syncFetch(_ name: RecordName, from server: Endpoint, into store: SyncClientStore) throws {
        var request = SyncRequest(endpoint: server)
        request.role = .clip
        request.names = [name]
        _ = try SyncClient.run(request, store: store)
    }

    private static func neverHeld(_ name: RecordName, _ failure: any Error) -> CLIError {
        .failure("cannot fetch share \(name): \(failure); this clip has never held it")
    }

    private static func unknown(_ name: RecordName) -> CLIError {
        .notFound("the server does not know share \(name): check the link, or ask its owner to share the card again")
    }

    /// The HTTP fetch: the link itself (over HTTPS, as an App Clip), or its
    /// path and query on `base`. Checks the URL and the CA file before any
    /// store is touched.
    private static func httpFetch(link: String, base: String?, caFile: String?) throws -> Fetch {
        let url: GatewayURL
        do {
            url = try base.map { base throws(GatewayClientError) in try GatewayURL(base: base, link: link) } ?? GatewayURL(link: link)
        } catch {
            throw CLIError.invalidInput(base == nil ? "\(error)" : "--http: \(error)")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw CLIError.invalidInput("--ca-file: cannot read \(caFile); give a PEM file of certificate authorities")
        }
        let client: GatewayClient
        do { client = try GatewayClient(options: GatewayClient.Options(caFile: caFile)) } catch { throw CLIError.failure("\(error)") }
        return .http(client, url)
    }
}
