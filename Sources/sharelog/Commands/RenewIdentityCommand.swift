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
        let store = try context.openStore()
        // An open for writing renews by itself when the store's own signs
        // show a copy or a restore; a second renewal would cost the peers
        // a second snapshot for nothing.
        let renewal = try store.identityRenewal ?? store.renewIdentity()
        let output = Output(
            previousReplicaID: "\(renewal.previousReplica)", replicaID: "\(renewal.replica)", epoch: "\(renewal.epoch)",
            reason: "\(renewal.reason)")
        if context.json { try context.printJSON(output); return ExitCode.success }
        context.print("replica \(renewal.previousReplica) is now replica \(renewal.replica), epoch \(renewal.epoch) (\(renewal.reason)); "
            + "its peers take one snapshot of it at their next sync")
        return ExitCode.success
    }
}
