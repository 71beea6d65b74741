/// Wall time since it was made, on the monotonic clock.
struct Stopwatch {
    private let start = ContinuousClock.now

    var seconds: Double {
        let elapsed = (ContinuousClock.now - start).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }
}
