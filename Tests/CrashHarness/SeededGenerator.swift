/// A reproducible random number generator (SplitMix64): the same seed gives
/// the same operations and kill delays on every machine.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one part of a run (a store, a writer incarnation),
    /// derived from `seed` and `parts` so that parts do not share a stream.
    public init(seed: UInt64, _ parts: Int...) {
        var mixer = SeededGenerator(seed: seed)
        for part in parts { mixer = SeededGenerator(seed: mixer.next() ^ UInt64(bitPattern: Int64(part))) }
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
