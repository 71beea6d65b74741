import ShareLog

struct ClipLastCommand: Command {
    static let name = "clip last"
    static let synopsis = "clip last [--vcard] [--photo FILE]"
    static let summary = "Relaunch without a link: show the share this clip showed last, from its own store, without the network."

    static let options: [OptionSpec] = [ShareAnswer.vCardOption, ShareAnswer.photoOption]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        var answer = ShareAnswer(rawCard: arguments.flag("vcard"), photoPath: try arguments.option("photo"))
        try arguments.finish()
        let store = try context.openStoreToRead(for: Self.name)
        guard let name = try store.lastShown() else {
            throw CLIError.notFound("this clip has not shown a share yet: open one with 'sharelog clip open LINK'")
        }
        answer.source = .clipStore
        return try answer.show(name, from: store, context)
    }
}
