import ShareSync

extension FrameDecoder {
    /// `decode` over an array's bytes.
    func decode(_ bytes: some Collection<UInt8>) throws(FrameError) -> FrameDecoding {
        let result = Array(bytes).withUnsafeBytes { raw in Result { () throws(FrameError) in try decode(raw) } }
        return try result.get()
    }
}
