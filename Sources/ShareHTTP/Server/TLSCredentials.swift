import Glibc
import SharePrimitives

extension HTTPServerConfiguration {
    /// A PEM certificate chain and its private key, as an `HTTPServer`
    /// presents them. The key lives in memory that is zeroed when the last
    /// copy goes and never prints (`SecretBytes`); the certificate is
    /// public.
    public struct TLSCredentials: Sendable {
        /// The largest file `load` reads: a chain of a few certificates
        /// takes a few KiB.
        public static let maxFileBytes = 1 << 20

        public var certificatePEM: [UInt8]
        /// The private key's PEM text.
        let key: SecretBytes

        /// Credentials from PEM text already in memory; `keyPEM` is copied
        /// into memory of the credentials' own, and the caller's array
        /// stays as it is.
        public init(certificatePEM: [UInt8], keyPEM: [UInt8]) {
            self.init(certificatePEM: certificatePEM, key: SecretBytes(keyPEM))
        }

        package init(certificatePEM: [UInt8], key: SecretBytes) {
            self.certificatePEM = certificatePEM
            self.key = key
        }

        /// Reads the certificate chain at `certificate` and the private key
        /// at `key`, both PEM. The key's text goes straight into
        /// `SecretBytes`; the buffer it passed through is zeroed. Only
        /// their form is checked here: whether libmicrohttpd (GnuTLS) can
        /// use the pair shows when a server starts with it.
        ///
        /// - Throws: `TLSCredentialsError` naming the file: it cannot be
        ///   read, is larger than `maxFileBytes`, or holds no PEM block.
        public static func load(certificate: String, key: String) throws(TLSCredentialsError) -> TLSCredentials {
            // A certificate holds no secret; only the key's copies are zeroed.
            let certificateText = try read(certificate)
            var keyText = try read(key)
            defer { SecretBytes.erase(&keyText) }
            guard isPEM(certificateText) else { throw .notPEM(path: certificate) }
            guard isPEM(keyText) else { throw .notPEM(path: key) }
            return TLSCredentials(certificatePEM: certificateText, key: SecretBytes(keyText))
        }

        /// Whether `text` holds a PEM block's first line.
        private static func isPEM(_ text: [UInt8]) -> Bool {
            let marker = Array("-----BEGIN ".utf8)
            guard text.count >= marker.count else { return false }
            return (0...(text.count - marker.count)).contains { text[$0..<($0 + marker.count)].elementsEqual(marker) }
        }

        /// The whole file at `path`, read into a buffer reserved up front so
        /// that it is never moved (a move would leave a copy that nobody zeroes).
        private static func read(_ path: String) throws(TLSCredentialsError) -> [UInt8] {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
            defer { close(descriptor) }
            var bytes = [UInt8](repeating: 0, count: maxFileBytes + 1)
            var count = 0
            while count < bytes.count {
                let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
                if got < 0, errno == EINTR { continue }
                guard got >= 0 else {
                    let code = errno
                    SecretBytes.erase(&bytes)
                    throw .unreadable(path: path, errno: code)
                }
                if got == 0 { break }
                count += got
            }
            guard count <= maxFileBytes else {
                SecretBytes.erase(&bytes)
                throw .tooLarge(path: path)
            }
            let text = Array(bytes[..<count])
            SecretBytes.erase(&bytes)
            return text
        }
    }
}
