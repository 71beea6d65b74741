import Foundation
import ShareLog

extension Identifier {
    /// The bytes of an identifier on the wire.
    static var wireSize: Int { 16 }

    /// The 16 bytes on the wire, in UUID byte order (as in docs/FORMAT.md).
    var wireBytes: [UInt8] { withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    /// Reads the 16 bytes of `wireBytes`.
    ///
    /// - Precondition: `bytes.count == 16`.
    init(wireBytes bytes: ArraySlice<UInt8>) {
        precondition(bytes.count == 16, "an identifier is 16 bytes")
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        self.init(uuid: UUID(uuid: raw))
    }
}
