import ShareLog
import ShareSync
import Testing

@Suite struct FrameBufferTests {
    static let helloFrame = Frame(type: .hello, payload: GoldenFrame.hello.payload)
    static let batchFrame = Frame(type: .batch, payload: GoldenFrame.batch.payload)

    @Test func twoFramesBackToBackComeOutInOrder() throws {
        var buffer = FrameBuffer()
        buffer.append(contentsOf: GoldenFrame.hello.bytes + GoldenFrame.batch.bytes)
        #expect(try buffer.nextFrame(using: FrameDecoder()) == Self.helloFrame)
        #expect(try buffer.nextFrame(using: FrameDecoder()) == Self.batchFrame)
        #expect(try buffer.nextFrame(using: FrameDecoder()) == nil)
        #expect(buffer.bytesHeld == 0)
    }

    @Test func framesArrivingOneByteAtATimeComeOutWhole() throws {
        var buffer = FrameBuffer()
        var frames: [Frame] = []
        for byte in GoldenFrame.hello.bytes + GoldenFrame.heartbeat.bytes + GoldenFrame.batch.bytes {
            buffer.append(contentsOf: [byte])
            while let frame = try buffer.nextFrame(using: FrameDecoder()) { frames.append(frame) }
        }
        #expect(frames == [Self.helloFrame, Frame(type: .heartbeat, payload: []), Self.batchFrame])
        #expect(buffer.bytesHeld == 0)
    }

    @Test func theBufferHoldsAtMostOneFrameAndOneRead() throws {
        // Frames of exactly the limit (1,000 + 9 bytes), read 777 bytes at a time.
        let decoder = FrameDecoder(maxPayloadBytes: 1000)
        let stream = (0..<5).flatMap { index in
            FrameEncoder.encode(Frame(type: .snapshotBatch, payload: Array(repeating: UInt8(index), count: 1000)))
        }
        var buffer = FrameBuffer()
        var fed = 0
        var frames = 0
        while fed < stream.count {
            let read = stream[fed..<min(fed + 777, stream.count)]
            buffer.append(contentsOf: read)
            // What the last drain kept (less than one frame) plus this read.
            #expect(buffer.bytesHeld == fed % 1009 + read.count)
            fed += read.count
            while let frame = try buffer.nextFrame(using: decoder) {
                #expect(frame.payload == Array(repeating: UInt8(frames), count: 1000))
                frames += 1
            }
            #expect(frames == fed / 1009)
            #expect(buffer.bytesHeld == fed % 1009)
        }
        #expect(frames == 5)
    }

    @Test func aBadFrameEndsTheStream() throws {
        var buffer = FrameBuffer()
        buffer.append(contentsOf: GoldenFrame.heartbeat.bytes + hex("00000000 63"))
        #expect(try buffer.nextFrame(using: FrameDecoder()) == Frame(type: .heartbeat, payload: []))
        let first = #expect(throws: FrameError.self) { try buffer.nextFrame(using: FrameDecoder()) }
        #expect(first == .unknownType(0x63))
        buffer.append(contentsOf: GoldenFrame.hello.bytes)
        #expect(buffer.bytesHeld == 0)
        let again = #expect(throws: FrameError.self) { try buffer.nextFrame(using: FrameDecoder()) }
        #expect(again == .unknownType(0x63))
    }

    @Test func anOversizedLengthIsRefusedBeforeThePayloadArrives() {
        var buffer = FrameBuffer()
        buffer.append(contentsOf: hex("7fffffff"))
        let error = #expect(throws: FrameError.self) { try buffer.nextFrame(using: FrameDecoder()) }
        #expect(error == .oversized(length: 2_147_483_647, limit: 4_194_304))
    }
}
