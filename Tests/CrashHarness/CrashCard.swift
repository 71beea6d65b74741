import SampleCards
import ShareLog

/// The vCard of a crash-test share, made again from its number by the
/// checker, which compares it byte for byte with what the store holds.
public enum CrashCard {
    /// Card `index`; every eighth carries a photo large enough to need LMDB
    /// overflow pages, so kills also land in multi-page writes.
    public static func bytes(index: Int) -> [UInt8] {
        SampleCard.make(index: index, photoBytes: index % 8 == 0 ? 3000 + index % 2000 : nil)
    }
}
