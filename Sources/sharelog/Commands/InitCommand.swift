import ShareLog

struct InitCommand: Command {
    static let name = "init"
    static let synopsis = "init"
    static let summary = "Create the store (if needed) and print its replica id and epoch."

    struct Output: Encodable {
        let store: String
        let replicaID: String
        let epoch: String
        let created: Bool
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        try arguments.finish()
        let store = try context.openStore(creatingIfMissing: true)
        defer { store.close() }
        let created = store.wasCreated
        let output = Output(store: context.storePath, replicaID: "\(store.replicaID)", epoch: "\(store.epoch)", created: created)
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print(created ? "created store \(context.storePath)" : "store \(context.storePath) already exists")
        context.print("replica: \(output.replicaID)")
        context.print("epoch:   \(output.epoch)")
        return ExitCode.success
    }
}
