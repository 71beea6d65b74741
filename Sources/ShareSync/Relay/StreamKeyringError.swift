import Foundation

/// Why a stream key file could not be used.
public enum StreamKeyringError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, errno: Int32)
    /// Users other than its owner may read or write it.
    case exposed(path: String, mode: UInt32)
    case malformed(path: String, StreamKeyError)
    /// `create` never replaces a file.
    case exists(path: String)
    case unwritable(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .unreadable(let path, let code):
            "cannot read the stream key file \(path): \(String(cString: strerror(code)))"
        case .exposed(let path, let mode):
            "the stream key file \(path) has mode \(String(mode & 0o777, radix: 8)); other users may read it. Run chmod 600 \(path)"
        case .malformed(let path, let reason):
            "the stream key file \(path) is not a stream key: \(reason)"
        case .exists(let path):
            "\(path) exists; a stream key file is never overwritten. Give another path"
        case .unwritable(let path, let code):
            "cannot write the stream key file \(path): \(String(cString: strerror(code)))"
        }
    }
}
