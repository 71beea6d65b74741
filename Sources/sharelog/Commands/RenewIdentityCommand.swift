import ShareLog

struct RenewIdentityCommand: Command {
    static let name = "renew-identity"
    static let synopsis = "renew-identity"
    static let summary = "Give a store restored from an older copy a new replica id and epoch (its peers then take one snapshot)."

    struct Output: Encodable {
        let previousReplicaID: String
        let replicaID: String
        let epoch: String
        /// Why: "requested", or the sign the open itself found.
        let reason: String
    }

    static let options: [OptionSpec] = []

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        try arguments.finish()
        let renewal = try context.openStore().renewIdentityAlone()
        let output = Output(
            previousReplicaID: "\(renewal.previousReplica)", replicaID: "\(renewal.replica)", epoch: "\(renewal.epoch)",
            reason: "\(renewal.reason)")
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("replica \(renewal.previousReplica) is now replica \(renewal.replica), epoch \(renewal.epoch) (\(renewal.reason)); "
            + "its peers take one snapshot of it at their next sync")
        return ExitCode.success
    }
}
