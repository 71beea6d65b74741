import Foundation
import TestSupport

/// One named database of a store as `mdb_dump` (Debian's lmdb-utils)
/// prints it: an oracle for what the store holds that owes nothing to
/// ShareLog's own readers. Keys and values are hex strings, as dumped.
struct StoreDump {
    let database: String
    let entries: [String: String]

    /// Dumps `database` of the store at `store`, which no process may be
    /// writing to.
    init(_ database: String, of store: String) throws {
        let command = "mdb_dump -s \(database) \(store)"
        let dumped = try CLIResult(Subprocess.run("/usr/bin/mdb_dump", ["-s", database, store], timeout: .seconds(60))).checked(command)
        let lines = dumped.text.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: "HEADER=END"), let end = lines.firstIndex(of: "DATA=END"), start < end,
              (end - start - 1) % 2 == 0
        else { throw HarnessFailure.unexpected("\(command) printed no HEADER=END … DATA=END with key and value lines") }
        var entries: [String: String] = [:]
        for index in stride(from: start + 1, to: end, by: 2) {
            entries[lines[index].trimmingCharacters(in: .whitespaces)] = lines[index + 1].trimmingCharacters(in: .whitespaces)
        }
        self.database = database
        self.entries = entries
    }

    /// The entries with the hex digits of bytes `range` of each value
    /// replaced by `x`: for bytes that are log positions, which differ
    /// between replicas by design. `when` picks the values to mask.
    func maskingValueBytes(_ range: Range<Int>, when: (String) -> Bool = { _ in true }) -> [String: String] {
        entries.mapValues { value in
            guard when(value), value.count >= range.upperBound * 2 else { return value }
            var characters = Array(value)
            for index in (range.lowerBound * 2)..<(range.upperBound * 2) { characters[index] = "x" }
            return String(characters)
        }
    }
}
