/// The command line after the program's name, split by the options the
/// command declares (`OptionSpec`): options (`--name value`,
/// `--name=value`, `--flag`) in any place, before or after the positional
/// arguments, and the positional arguments in order. A command takes what
/// it reads; whatever it leaves is a usage error at `finish()`.
///
/// An option's value is the token after it whatever it looks like (`--ttl
/// -5` is refused as a TTL, not as an option), except that a value never
/// starts with `--`. After `--` alone, every token is positional.
struct Arguments {
    /// The values given for each option, in order; a flag's are empty strings.
    private var given: [String: [String]] = [:]
    /// The order options were given in, for `finish()`'s message.
    private var order: [String] = []
    private var positionals: [String] = []
    private let declared: [String: OptionSpec]

    /// Splits `tokens` by `options`, those of `command` (for messages).
    ///
    /// - Throws: `CLIError.usage` naming the first unknown option (one that
    ///   `elsewhere` holds is another command's), a value missing after an
    ///   option that takes one, or a value given to a flag.
    init(
        _ tokens: some Sequence<String>, options: [OptionSpec], command: String? = nil, elsewhere: [OptionSpec] = []
    ) throws(CLIError) {
        declared = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var tokens = Array(tokens)[...]
        while let token = tokens.popFirst() {
            if token == "--" {
                positionals += tokens
                break
            }
            guard token.hasPrefix("--") else {
                positionals.append(token)
                continue
            }
            let body = token.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = declared[name] else {
                guard let command, elsewhere.contains(where: { $0.name == name }) else { throw .usage("unknown option --\(name)") }
                throw .usage("--\(name) is not an option of '\(command)'")
            }
            var values: [String]
            switch (spec.kind, inline) {
            case (.flag, nil): values = [""]
            case (.flag, .some): throw .usage("--\(name) takes no value")
            case (_, let value?): values = [value]
            case (.value, nil):
                guard let value = tokens.first, !value.hasPrefix("--") else { throw .usage("--\(name) needs a value") }
                values = [value]
                tokens.removeFirst()
            case (.values, nil):
                values = Array(tokens.prefix { !$0.hasPrefix("--") })
                guard !values.isEmpty else { throw .usage("--\(name) needs at least one value") }
                tokens.removeFirst(values.count)
            }
            if given[name] == nil { order.append(name) }
            given[name, default: []] += values
        }
    }

    /// Removes and returns the value of `--name`; nil when absent.
    ///
    /// - Throws: `CLIError.usage` when it was given more than once.
    mutating func option(_ name: String) throws(CLIError) -> String? {
        checkDeclared(name, .value)
        guard let values = given.removeValue(forKey: name) else { return nil }
        guard values.count == 1 else { throw .usage("--\(name) was given \(values.count) times; give it once") }
        return values[0]
    }

    /// Removes every value of `--name`: `--only A B --only C` gives
    /// [A, B, C]. Empty when absent.
    mutating func values(_ name: String) throws(CLIError) -> [String] {
        checkDeclared(name, .values)
        return given.removeValue(forKey: name) ?? []
    }

    /// Removes `--name` and says whether it was there.
    mutating func flag(_ name: String) -> Bool {
        checkDeclared(name, .flag)
        return given.removeValue(forKey: name) != nil
    }

    /// Whether `--name` was given (and not yet taken); consumes nothing.
    func contains(_ name: String) -> Bool {
        precondition(declared[name] != nil, "--\(name) is read but not declared")
        return given[name] != nil
    }

    /// Removes and returns the next positional argument (`-` counts as one).
    mutating func positional(_ what: String) throws(CLIError) -> String {
        guard let next = optionalPositional() else { throw .usage("missing \(what)") }
        return next
    }

    /// The next positional argument if there is one.
    mutating func optionalPositional() -> String? {
        positionals.isEmpty ? nil : positionals.removeFirst()
    }

    /// Throws for anything not taken: an extra argument, or an option this
    /// command declares but does not use with the others given (`--photo`
    /// beside `--vcard`).
    func finish() throws(CLIError) {
        if let extra = positionals.first { throw .usage("unexpected argument '\(extra)'") }
        if let unused = order.first(where: { given[$0] != nil }) {
            throw .usage("--\(unused) does not go with the other options given")
        }
    }

    /// Parses an integer option within `range`.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidInput("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// A command reads only the options it declares, each as declared: a
    /// programming error otherwise, which every command's tests meet.
    private func checkDeclared(_ name: String, _ kind: ReadKind) {
        guard let spec = declared[name] else { preconditionFailure("--\(name) is read but not declared") }
        switch (spec.kind, kind) {
        case (.flag, .flag), (.value, .value), (.values, .values): break
        default: preconditionFailure("--\(name) is declared as \(spec.kind) but read as \(kind)")
        }
    }

    private enum ReadKind { case flag, value, values }
}
