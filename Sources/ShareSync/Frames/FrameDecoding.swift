/// What `FrameDecoder.decode` found at the front of a buffer.
public enum FrameDecoding: Hashable, Sendable {
    /// No whole frame yet, and nothing consumed. `total` is the size the
    /// buffer must reach before a frame can come out: `Frame.headerSize`
    /// (9) while the length is not known (fewer than 4 bytes), then 9 +
    /// the declared length.
    case needMore(total: Int)
    /// A whole, checked frame, made of the first `consumed` bytes of the
    /// buffer; the bytes after them are not looked at.
    case frame(Frame, consumed: Int)
}
