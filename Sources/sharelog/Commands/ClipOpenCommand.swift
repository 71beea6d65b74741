import ShareClip
import ShareLog
import ShareSync

struct ClipOpenCommand: Command {
    static let name = "clip open"
    static let synopsis = "clip open LINK --connect unix:PATH|tcp:HOST:PORT|exec:COMMAND [--key-file F] [--vcard] [--photo FILE]"
    static let summary = "The clip's first launch: parse the link, fetch that one share from the server into this store, show it."

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let link = try arguments.positional("App Clip link")
        let sync = try SyncOptions(&arguments, endpointOption: "connect")
        var answer = ShareAnswer(rawCard: arguments.flag("vcard"), photoPath: try arguments.option("photo"))
        try arguments.finish()
        // The link first, with the exact-domain parser: a bad one touches nothing.
        let name: RecordName
        do {
            guard case .share(let uuid) = try AppClipLinkParser(domains: [context.domain]).parse(link) else {
                throw ShareLogError.invalidLink("not a share link")
            }
            name = RecordName(uuid: uuid)
        } catch let error as AppClipLinkError {
            throw ShareLogError.invalidLink(error.description)
        }
        let store = try context.openStore(creatingIfMissing: true)
        var request = SyncRequest(endpoint: sync.endpoint)
        request.role = .clip
        request.names = [name]
        request.key = sync.key
        request.options = sync.session
        do {
            _ = try SyncClient.run(request, store: store)
            answer.source = "the server, just now"
        } catch {
            // Offline: the clip's own store answers when it holds the share.
            guard try store.fetch(name) != .notFound else {
                throw CLIError.failure("cannot fetch share \(name): \(error); this clip has never held it")
            }
            logLine("the server is unreachable (\(error)); answering from this clip's own store")
            answer.source = "this clip's store (the server was unreachable)"
        }
        if try store.fetch(name) != .notFound { try store.recordShown(name) }
        // A share that has ended by this clip's clock keeps no card here,
        // even one the server sent because its own clock had it live still.
        if case .expired = try store.fetch(name) {
            try store.sweep()
            try store.compact()
        }
        return try answer.show(name, from: store, context)
    }
}
