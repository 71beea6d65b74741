import ShareLog

struct PeersCommand: Command {
    static let name = "peers"
    static let synopsis = "peers"
    static let summary = "List the replicas this store has pulled from: epoch, position in their log, last seen."

    struct Output: Encodable {
        let peer: String
        let epoch: String
        let position: UInt64
        let lastSeen: String
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        try arguments.finish()
        let peers = try context.openStoreToRead(for: Self.name).peers().map {
            Output(peer: "\($0.peer)", epoch: "\($0.epoch)", position: $0.position, lastSeen: $0.lastSeen.iso8601)
        }
        if context.json { try context.printJSON(peers); return ExitCode.success }
        guard !peers.isEmpty else {
            context.print("no peers yet: this store has not pulled from another replica")
            return ExitCode.success
        }
        for peer in peers {
            context.print("\(peer.peer)  epoch \(peer.epoch)  position \(peer.position)  last seen \(peer.lastSeen)")
        }
        return ExitCode.success
    }
}
