/// A content line the preview reads: its name, parameters, and where its value lies in the
/// raw (still folded) bytes.
///
/// Invariant: `bytes[valueStart..<valueEnd]` is the value exactly as stored, folds included;
/// read it with ``VCardUnfoldingIterator`` (or a reader that skips whitespace, for base64).
struct VCardProperty {
    let name: VCardPropertyName
    let parameters: [VCardParameter]
    let valueStart: Int
    let valueEnd: Int

    /// Parses the content line `bytes[start..<end]`, or returns `nil` if it is a property the
    /// preview does not read (cost: reading its name only) or is malformed (no `:`, a bad
    /// name, an unclosed quote), which the preview skips as Contacts-compatible readers do.
    init?(bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
        var iterator = VCardUnfoldingIterator(bytes: bytes, start: start, end: end)
        guard let (name, terminator) = VCardPropertyName.read(from: &iterator), name != .other else { return nil }
        if terminator == VCardByte.semicolon {
            guard let parameters = VCardParameter.readAll(from: &iterator) else { return nil }
            self.parameters = parameters
        } else {
            parameters = []
        }
        self.name = name
        valueStart = iterator.position
        valueEnd = end
    }

    /// The uppercased values of every parameter named `name` (`""` for bare parameters).
    func parameterValues(named name: String) -> [String] {
        parameters.filter { $0.name == name }.flatMap { $0.values.map { $0.uppercased() } }
    }
}
