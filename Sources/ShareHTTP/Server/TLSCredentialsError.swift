import Glibc

/// Why `HTTPServerConfiguration.TLSCredentials.load` could not read a
/// certificate or key file. Each names the file.
public enum TLSCredentialsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// It could not be opened or read: its `errno`.
    case unreadable(path: String, errno: Int32)
    /// It is larger than `TLSCredentials.maxFileBytes`.
    case tooLarge(path: String)
    /// It holds no `-----BEGIN ` line.
    case notPEM(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let code): "\(path): cannot read the file: \(String(cString: strerror(code)))"
        case .tooLarge(let path): "\(path): larger than 1 MiB, which no certificate chain or key is"
        case .notPEM(let path): "\(path): not a PEM file (no -----BEGIN line)"
        }
    }
}
