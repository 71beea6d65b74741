import COpenSSL

/// Names the cause of a TLS failure from OpenSSL's error codes.
enum TLSFailure {
    /// OpenSSL reasons that mean the two sides hold different keys: the
    /// server finds the client's PSK binder wrong; the client receives the
    /// server's `decrypt_error` alert for it (with a PSK and no
    /// certificates, nothing else in a handshake raises that alert); a
    /// Finished message that does not verify.
    static let keyMismatchReasons: Set<Int32> = [
        SSL_R_BINDER_DOES_NOT_VERIFY, SSL_R_TLSV1_ALERT_DECRYPT_ERROR, SSL_R_DIGEST_CHECK_FAILED,
    ]

    /// OpenSSL reasons that mean the bytes received are not TLS records, or
    /// not the TLS messages a handshake expects at that point.
    static let notTLSReasons: Set<Int32> = [
        SSL_R_WRONG_VERSION_NUMBER, SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST, SSL_R_PACKET_LENGTH_TOO_LONG,
        SSL_R_UNEXPECTED_MESSAGE, SSL_R_UNEXPECTED_RECORD, SSL_R_BAD_RECORD_TYPE,
    ]

    static func error(status: Int32, errors: [(code: UInt, text: String)], operation: String, peer: String) -> TransportError {
        let details = errors.map(\.text)
        let reasons = Set(errors.filter { ERR_GET_LIB($0.code) == ERR_LIB_SSL }.map { ERR_GET_REASON($0.code) })
        if !reasons.isDisjoint(with: keyMismatchReasons) { return .tlsKeyMismatch(peer: peer, details: details) }
        if !reasons.isDisjoint(with: notTLSReasons) { return .tlsNotSpoken(peer: peer, details: details) }
        if details.isEmpty { return .tls(operation: operation, peer: peer, details: ["SSL_get_error \(status)"]) }
        return .tls(operation: operation, peer: peer, details: details)
    }
}
