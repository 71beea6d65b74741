/// Why a sync key file could not be read or written. Each description names
/// the file and says how to fix it.
public enum SyncKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read (`errno`).
    case unreadable(path: String, errno: Int32)
    /// Users other than the owner may read or write the file: the key is
    /// exposed, and it is not used.
    case exposed(path: String, mode: UInt32)
    /// The file does not hold 64 hexadecimal characters.
    case malformed(path: String, reason: String)
    /// `write(to:)` never replaces a file.
    case exists(path: String)
    /// The file could not be created or written (`errno`).
    case unwritable(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .unreadable(let path, let code):
            "cannot read the key file \(path): \(Posix.message(code)); check the path"
        case .exposed(let path, let mode):
            "the key file \(path) has mode \(String(mode & 0o777, radix: 8)), so other users can read or change it; "
                + "run 'chmod 600 \(path)', and make a new key if others may have seen it"
        case .malformed(let path, let reason):
            "the key file \(path) is not a sync key: \(reason); a key file holds 64 hexadecimal characters, "
                + "as 'openssl rand -hex 32' prints them"
        case .exists(let path):
            "\(path) already exists and is left as it is: remove it first, or choose another path"
        case .unwritable(let path, let code):
            "cannot write the key file \(path): \(Posix.message(code))"
        }
    }
}
