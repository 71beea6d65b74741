import Glibc

/// CLOCK_MONOTONIC in milliseconds and microseconds: for deadlines and
/// the access log's durations, never for anything a client sees.
enum MonotonicTime {
    static var microseconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    static var milliseconds: Int64 { microseconds / 1000 }
}
