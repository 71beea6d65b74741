/// One property parameter, such as `TYPE=JPEG` or `ENCODING="b"`.
///
/// ``name`` is uppercased; it is empty for a vCard 2.1 bare parameter (`PHOTO;JPEG;BASE64:`),
/// whose single value is the bare word. ``values`` are as written, without their quotes,
/// split at unquoted commas. Compare values case-insensitively.
struct VCardParameter: Equatable {
    let name: String
    let values: [String]

    /// Reads the parameters that follow a property name's `;`, through the `:` that starts the
    /// value. Returns `nil` if the line ends first or a quoted value is not closed.
    static func readAll(from iterator: inout VCardUnfoldingIterator) -> [VCardParameter]? {
        var parameters: [VCardParameter] = []
        while true {
            var name: [UInt8] = []
            var terminator: UInt8?
            while let byte = iterator.next() {
                if byte == VCardByte.equals || byte == VCardByte.semicolon || byte == VCardByte.colon {
                    terminator = byte
                    break
                }
                name.append(VCardByte.uppercased(byte))
            }
            switch terminator {
            case VCardByte.equals:
                guard let (values, end) = readValues(from: &iterator) else { return nil }
                parameters.append(VCardParameter(name: String(decoding: name, as: UTF8.self), values: values))
                if end == VCardByte.colon { return parameters }
            case VCardByte.semicolon, VCardByte.colon:
                parameters.append(VCardParameter(name: "", values: [String(decoding: name, as: UTF8.self)]))
                if terminator == VCardByte.colon { return parameters }
            default:
                return nil
            }
        }
    }

    /// Reads comma-separated values, each quoted or not, up to an unquoted `;` or `:`, which is
    /// returned as `end`.
    private static func readValues(from iterator: inout VCardUnfoldingIterator) -> (values: [String], end: UInt8)? {
        var values: [String] = []
        var value: [UInt8] = []
        var quoted = false
        while let byte = iterator.next() {
            if quoted {
                if byte == VCardByte.quote { quoted = false } else { value.append(byte) }
                continue
            }
            switch byte {
            case VCardByte.quote:
                quoted = true
            case VCardByte.comma, VCardByte.semicolon, VCardByte.colon:
                values.append(String(decoding: value, as: UTF8.self))
                value.removeAll(keepingCapacity: true)
                if byte != VCardByte.comma { return (values, byte) }
            default:
                value.append(byte)
            }
        }
        return nil
    }
}
