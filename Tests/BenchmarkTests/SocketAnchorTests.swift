import Testing
@testable import BenchmarkKit
import TestTraits

/// The socket anchors move what they claim to time between two processes.
/// Timings are never asserted.
@Suite(.hangDeadline) struct SocketAnchorTests {
    /// Sizes that end inside a 64 KiB write, exactly on one, and none at all.
    @Test(arguments: [3 * 65_536 + 12_345, 65_536, 0])
    func theChildReceivesExactlyTheBytesCopied(bytes: Int) throws {
        #expect(try SocketAnchor.copy(bytes: bytes).value == bytes)
    }

    @Test func everyRoundTripIsEchoedAndTimed() throws {
        let times = try SocketAnchor.roundTrips(200)
        #expect(times.count == 200)
        #expect(times.allSatisfy { $0 > 0 })
    }

    @Test func aMessageLargerThanTheChildsBufferIsRefused() {
        let error = #expect(throws: BenchError.self) { try SocketAnchor.roundTrips(1, messageBytes: 4097) }
        #expect(error?.description == "benchmark process failed: socket anchor: a message of 4097 bytes: give 8 to 4096")
    }
}
