internal import COpenSSL

/// OpenSSL's per-thread error queue.
enum OpenSSLErrorQueue {
    /// Empties the queue, as `SSL_get_error` requires before each TLS call.
    static func clear() { ERR_clear_error() }

    /// Empties the queue and returns its errors, oldest first, as
    /// `ERR_error_string_n` prints them.
    static func drain() -> [String] {
        drainCodes().map(\.text)
    }

    /// Empties the queue and returns its errors' codes with their texts.
    static func drainCodes() -> [(code: UInt, text: String)] {
        var errors: [(code: UInt, text: String)] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { return errors }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            errors.append((code, String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
    }
}
