import ShareLog

struct ShareGetCommand: Command {
    static let name = "share get"
    static let synopsis = "share get ID|LINK [--vcard] [--photo FILE]"
    static let summary = "Print a share's status, expiry and preview; --vcard prints the card, --photo saves its photo."

    static let options: [OptionSpec] = [ShareAnswer.vCardOption, ShareAnswer.photoOption]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let target = try arguments.positional("share id or link")
        let answer = ShareAnswer(rawCard: arguments.flag("vcard"), photoPath: try arguments.option("photo"))
        try arguments.finish()
        let store = try context.openStoreToRead(for: Self.name)
        return try answer.show(try recordName(target, store: store), from: store, context)
    }

    /// A record name, or the one an App Clip link points to.
    static func recordName(_ target: String, store: ShareStore) throws -> RecordName {
        if target.contains("://") { return try store.recordName(fromLink: target) }
        guard let name = RecordName(target) else { throw ShareLogError.invalidRecordName(target) }
        return name
    }
}
