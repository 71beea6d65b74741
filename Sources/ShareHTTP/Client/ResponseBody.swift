/// The body of one answer as libcurl hands it over, piece by piece, up to
/// `limit` bytes: a piece that would go past it is refused, which ends the
/// transfer with `CURLE_WRITE_ERROR`, and `overflowed` says why.
///
/// Not thread-safe: one transfer on one thread fills it.
final class ResponseBody {
    let limit: Int
    private(set) var bytes: [UInt8] = []
    private(set) var overflowed = false

    init(limit: Int) { self.limit = limit }

    /// Takes `piece`; false, keeping nothing of it, when it would pass `limit`.
    func append(_ piece: UnsafeRawBufferPointer) -> Bool {
        guard piece.count <= limit - bytes.count else {
            overflowed = true
            return false
        }
        bytes.append(contentsOf: piece)
        return true
    }
}
