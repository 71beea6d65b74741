/// The property names the preview reads; everything else is ``other`` and skipped unparsed.
///
/// Names are matched in any letter case, after dropping a group prefix (`item1.ORG` is ORG).
enum VCardPropertyName: Equatable {
    case formattedName, name, title, role, organization, photo, end, other

    /// Reads the name (and any group prefix) from the start of a content line.
    ///
    /// Returns the name and the byte that ended it (`;` before parameters, `:` before the
    /// value), or `nil` if the line ends first or the name contains a character no name may
    /// hold. Names longer than eight bytes are ``other`` without being stored: the bytes are
    /// packed uppercase into one `UInt64`, so reading a name never allocates.
    static func read(from iterator: inout VCardUnfoldingIterator) -> (name: VCardPropertyName, terminator: UInt8)? {
        var packed: UInt64 = 0
        var length = 0
        while let byte = iterator.next() {
            switch byte {
            case VCardByte.colon, VCardByte.semicolon:
                return (length <= 8 ? VCardPropertyName(packed: packed) : .other, byte)
            case VCardByte.period:
                packed = 0
                length = 0
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                packed = packed << 8 | UInt64(VCardByte.uppercased(byte))
                length += 1
            default:
                return nil
            }
        }
        return nil
    }

    private init(packed: UInt64) {
        self = Self.known[packed] ?? .other
    }

    private static let known: [UInt64: VCardPropertyName] = [
        pack("FN"): .formattedName,
        pack("N"): .name,
        pack("TITLE"): .title,
        pack("ROLE"): .role,
        pack("ORG"): .organization,
        pack("PHOTO"): .photo,
        pack("END"): .end,
    ]

    private static func pack(_ name: String) -> UInt64 {
        name.utf8.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
