import TestSupport

extension SeededGenerator {
    /// A generator for one part of a run (a store, a writer incarnation),
    /// derived from `seed` and `parts`, so that parts do not share a stream
    /// and the same seed gives the same choices on every machine.
    init(seed: UInt64, _ first: Int, _ rest: Int...) {
        var derived = seed
        for part in [first] + rest {
            var mixer = SeededGenerator(seed: derived ^ UInt64(bitPattern: Int64(part)))
            derived = mixer.next()
        }
        self.init(seed: derived)
    }
}
