internal import COpenSSL

/// Names the cause of a TLS failure from OpenSSL's error codes.
enum TLSFailure {
    /// Reasons that show this side found the peer's key different: the
    /// server finds the client's PSK binder wrong; either side finds the
    /// other's Finished message wrong.
    static let keyMismatchReasons: Set<Int32> = [SSL_R_BINDER_DOES_NOT_VERIFY, SSL_R_DIGEST_CHECK_FAILED]

    /// Alerts a client receives in the handshake when the server found its
    /// PSK binder wrong: OpenSSL 3.0 sends `illegal_parameter`, RFC 8446
    /// §4.2.11 `decrypt_error`. With a PSK, no certificates and a ShareLog
    /// client's well-formed hello, nothing else makes a server send them.
    static let keyMismatchAlerts: Set<Int32> = [SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER, SSL_R_TLSV1_ALERT_DECRYPT_ERROR]

    /// Reasons that mean the bytes received are not TLS records, or not the
    /// messages a handshake expects at that point (a plain server that
    /// echoes the client's hello, for one).
    static let notTLSReasons: Set<Int32> = [
        SSL_R_WRONG_VERSION_NUMBER, SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST, SSL_R_PACKET_LENGTH_TOO_LONG,
        SSL_R_UNEXPECTED_MESSAGE, SSL_R_UNEXPECTED_RECORD, SSL_R_BAD_RECORD_TYPE,
    ]

    /// The error of a failed `SSL_*` call during `operation` ("handshake",
    /// "read", "write"), whose `SSL_get_error` is `status`, from the errors
    /// OpenSSL queued.
    static func error(status: Int32, errors: [(code: UInt, text: String)], operation: String, peer: String) -> TransportError {
        let details = errors.map(\.text)
        let reasons = Set(errors.filter { ERR_GET_LIB($0.code) == ERR_LIB_SSL }.map { ERR_GET_REASON($0.code) })
        if !reasons.isDisjoint(with: keyMismatchReasons) || operation == "handshake" && !reasons.isDisjoint(with: keyMismatchAlerts) {
            return .tlsKeyMismatch(peer: peer, details: details)
        }
        if !reasons.isDisjoint(with: notTLSReasons) { return .tlsNotSpoken(peer: peer, details: details) }
        if details.isEmpty { return .tls(operation: operation, peer: peer, details: ["SSL_get_error \(status)"]) }
        return .tls(operation: operation, peer: peer, details: details)
    }
}
