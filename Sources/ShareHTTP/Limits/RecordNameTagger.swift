internal import COpenSSL
import ShareLog
import SharePrimitives

/// The only trace of a record name the access log may hold: 8 bytes of
/// HMAC-SHA-256 under a key that lives in memory only and is replaced at
/// each UTC midnight. Lines of one day can be matched with each other
/// (the same share, asked for again); after the key is gone, nobody,
/// this process included, can tell which share a tag was, or match tags
/// across days. The HMAC and the key's random bytes are OpenSSL's.
public final class RecordNameTagger: Sendable {
    /// The UTC day of the key, and the key.
    private let state = Locked<(day: Int64, key: [UInt8])>((Int64.min, []))

    public init() {}

    /// The tag of `name` at `now`: 16 lowercase hex digits.
    public func tag(_ name: RecordName, at now: Timestamp) -> String {
        let day = now.milliseconds >= 0 ? now.milliseconds / 86_400_000 : (now.milliseconds - 86_399_999) / 86_400_000
        let key = state.withLock { state -> [UInt8] in
            if state.day != day { state = (day, Self.freshKey()) }
            return state.key
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        withUnsafeBytes(of: name.uuid.uuid) { message in
            _ = HMAC(EVP_sha256(), key, Int32(key.count), message.bindMemory(to: UInt8.self).baseAddress, message.count, &digest, &length)
        }
        return digest.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func freshKey() -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        guard RAND_bytes(&key, Int32(key.count)) == 1 else { fatalError("OpenSSL's RAND_bytes failed: no randomness for the log key") }
        return key
    }
}
