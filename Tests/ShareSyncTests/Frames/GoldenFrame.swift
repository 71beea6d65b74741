import ShareLog
import ShareSync
import Testing

/// A frame written byte by byte by hand, with the message it carries.
/// The CRC-32s were computed apart from ShareSync, with a bitwise
/// implementation in Python (no zlib), checked against CRC-32("123456789")
/// = 0xCBF43926.
struct GoldenFrame: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let message: Message

    var testDescription: String { name }

    /// The header's CRC-32 (bytes 5…8).
    var crc: UInt32 { bytes[5...8].reduce(0) { $0 << 8 | UInt32($1) } }
    var payload: [UInt8] { Array(bytes[9...]) }

    static let replica = ReplicaID("00112233-4455-6677-8899-aabbccddeeff")!
    static let epoch = Epoch("f0e1d2c3-b4a5-9687-7869-5a4b3c2d1e0f")!

    static let hello = GoldenFrame(
        name: "hello",
        bytes: hex("""
            0000004a 01 1baee434
            534c5359
            0002 0002 01 05
            00112233445566778899aabbccddeeff
            f0e1d2c3b4a5968778695a4b3c2d1e0f
            000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
            """),
        message: .hello(Message.Hello(
            versions: 2 ... 2, role: .main, directions: [.pull, .follow], replica: replica, epoch: epoch,
            nonce: HandshakeNonce(bytes: 0x00 ... 0x1F)!)))

    static let welcome = GoldenFrame(
        name: "welcome",
        bytes: hex("""
            00000063 02 72d282d2
            0002
            00112233445566778899aabbccddeeff
            f0e1d2c3b4a5968778695a4b3c2d1e0f
            202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
            20 a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf
            """),
        message: .welcome(Message.Welcome(
            version: 2, replica: replica, epoch: epoch, nonce: HandshakeNonce(bytes: 0x20 ... 0x3F)!,
            proof: HandshakeProof(bytes: 0xA0 ... 0xBF)!)))

    static let accepted = GoldenFrame(
        name: "accepted",
        bytes: hex("""
            00000029 11 f9dd83af
            0000000000000003
            20 a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf
            """),
        message: .accepted(Message.Accepted(heldOfYou: 3, proof: HandshakeProof(bytes: 0xA0 ... 0xBF)!)))

    static let pull = GoldenFrame(
        name: "pull",
        bytes: hex("""
            00000025 04 2e4dee15
            00000000000000000000000000000000
            0000000000000000
            01
            00100000
            0000000000000007
            """),
        message: .pull(Message.Pull(knownEpoch: nil, after: 0, follow: true, maxBatchBytes: 1 << 20, heldOfYou: 7)))

    static let batch = GoldenFrame(
        name: "batch",
        bytes: hex("""
            00000018 05 c48f44d4
            0000000000000102
            00000002
            00000003 aabbcc
            00000001 01
            """),
        message: .batch(through: 258, events: EncodedEvents(encoded: [[0xAA, 0xBB, 0xCC], [0x01]])))

    static let snapshotRequired = GoldenFrame(
        name: "snapshotRequired",
        bytes: hex("""
            00000019 08 e92038b7
            02
            f0e1d2c3b4a5968778695a4b3c2d1e0f
            00000000000003e8
            """),
        message: .snapshotRequired(reason: .behindHorizon, epoch: epoch, horizon: 1000))

    static let records = GoldenFrame(
        name: "records",
        bytes: hex("""
            0000002a 0d dc459df7
            0002
            00112233445566778899aabbccddeeff 01 00000002 6869
            ffffffffffffffffffffffffffffffff 00
            """),
        message: .records([
            Message.Record(name: RecordName(uuid: replica.uuid), events: EncodedEvents(encoded: [Array("hi".utf8)])),
            Message.Record(name: RecordName("ffffffff-ffff-ffff-ffff-ffffffffffff")!, events: EncodedEvents(encoded: [])),
        ]))

    static let heartbeat = GoldenFrame(name: "heartbeat", bytes: hex("00000000 0e 35bac28a"), message: .heartbeat)

    /// "trop occupé", with the é as the two bytes c3 a9.
    static let error = GoldenFrame(
        name: "error",
        bytes: hex("""
            0000000e 0f c6348e0f
            0009
            74726f70206f63637570 c3a9
            """),
        message: .error(code: .busy, message: "trop occupé"))

    static let all = [hello, welcome, accepted, pull, batch, snapshotRequired, records, heartbeat, error]
}
