/// The command line after the command's name: options (`--name value`,
/// `--name=value`, `--flag`) and positional arguments, consumed as a
/// command asks for them. Whatever is left over is a usage error.
struct Arguments {
    private var tokens: [String]

    init(_ tokens: some Sequence<String>) { self.tokens = Array(tokens) }

    /// Removes and returns the value of `--name`; nil when absent.
    mutating func option(_ name: String) throws(CLIError) -> String? {
        for (index, token) in tokens.enumerated() {
            if token == "--\(name)" {
                guard index + 1 < tokens.count, !tokens[index + 1].hasPrefix("--") else {
                    throw .usage("--\(name) needs a value")
                }
                let value = tokens[index + 1]
                tokens.removeSubrange(index...index + 1)
                return value
            }
            if token.hasPrefix("--\(name)=") {
                tokens.remove(at: index)
                return String(token.dropFirst(name.count + 3))
            }
        }
        return nil
    }

    /// Removes every `--name` and the values after each, up to the next
    /// option: `--only A B --only C` gives [A, B, C]. Empty when absent.
    mutating func values(_ name: String) throws(CLIError) -> [String] {
        var values: [String] = []
        while let index = tokens.firstIndex(of: "--\(name)") {
            let end = tokens[(index + 1)...].firstIndex { $0.hasPrefix("--") } ?? tokens.endIndex
            guard end > index + 1 else { throw .usage("--\(name) needs at least one value") }
            values += tokens[(index + 1)..<end]
            tokens.removeSubrange(index..<end)
        }
        return values
    }

    /// Removes `--name` and says whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let index = tokens.firstIndex(of: "--\(name)") else { return false }
        tokens.remove(at: index)
        return true
    }

    /// Whether `--name` (as a flag, `--name value` or `--name=value`) is
    /// there; consumes nothing.
    func contains(_ name: String) -> Bool {
        tokens.contains { $0 == "--\(name)" || $0.hasPrefix("--\(name)=") }
    }

    /// Removes and returns the next positional argument (`-` counts as one).
    mutating func positional(_ what: String) throws(CLIError) -> String {
        guard let index = tokens.firstIndex(where: { !$0.hasPrefix("--") }) else {
            throw .usage("missing \(what)")
        }
        return tokens.remove(at: index)
    }

    /// The next positional argument if there is one.
    mutating func optionalPositional() -> String? {
        guard let index = tokens.firstIndex(where: { !$0.hasPrefix("--") }) else { return nil }
        return tokens.remove(at: index)
    }

    /// Throws for anything not consumed.
    func finish() throws(CLIError) {
        if let extra = tokens.first {
            throw .usage(extra.hasPrefix("--") ? "unknown option \(extra)" : "unexpected argument '\(extra)'")
        }
    }

    /// Parses an integer option within `range`.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidInput("--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return value
    }
}
