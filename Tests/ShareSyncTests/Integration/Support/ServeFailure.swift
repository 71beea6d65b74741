/// A server that ended before it served; `log` is its standard error.
struct ServeFailure: Error, CustomStringConvertible {
    let log: String
    var description: String { "sharelog serve ended before it served: \(log)" }
}
