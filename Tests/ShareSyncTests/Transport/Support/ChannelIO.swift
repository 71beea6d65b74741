@testable import ShareSync

/// A deadline `duration` from now.
func after(_ duration: Duration) -> ContinuousClock.Instant {
    ContinuousClock.now.advanced(by: duration)
}

extension ByteChannel {
    /// Reads exactly `count` bytes; fewer only if the peer closes first.
    func read(exactly count: Int, deadline: ContinuousClock.Instant?) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < count {
            let wanted = min(chunk.count, count - bytes.count)
            let got = try chunk.withUnsafeMutableBytes { buffer in
                try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]), deadline: deadline)
            }
            if got == 0 { break }
            bytes += chunk[..<got]
        }
        return bytes
    }

    /// Writes back everything it reads until the peer closes; returns how
    /// many bytes went through.
    func echoUntilClosed(deadline: ContinuousClock.Instant?) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        var total = 0
        while true {
            let got = try chunk.withUnsafeMutableBytes { buffer in try read(into: buffer, deadline: deadline) }
            if got == 0 { return total }
            try write(Array(chunk[..<got]), deadline: deadline)
            total += got
        }
    }
}
