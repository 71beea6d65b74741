// sharelog-cold: the clip's cold start in Swift, for sharelog-bench. A fresh
// process opens a ShareLog store, fetches one share by record name and exits.
//
//   sharelog-cold DIRECTORY RECORD-NAME NOW-MS
//   sharelog-cold noop        (process start and exit only)
//
// Prints live, expired or missing. Exit codes as sharelog-cold-c's: 0 live,
// 3 not found, 4 expired, 1 failure, 2 usage, 5 a bad record name.
//
// It links the engine and nothing else, as an App Clip that embeds ShareLog
// does: no sync, no HTTP, no benchmark code, so that their libraries'
// loading and initialisers are not counted as the clip's (BENCHMARKS.md,
// "Cold start"). The parsing uses no Set or Dictionary, whose first use
// costs a Swift runtime lookup a clip need not make.
#if canImport(Glibc)
import Glibc
#endif
import ShareLog

/// Writes `line` to `descriptor` (standard output unless told) and exits with `code`.
func finish(_ line: String, _ code: Int32, to descriptor: Int32 = STDOUT_FILENO) -> Never {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    exit(code)
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "noop" { exit(0) }
guard arguments.count == 4, let now = Int64(arguments[3]) else {
    finish("usage: sharelog-cold DIRECTORY RECORD-NAME NOW-MS | noop", 2, to: STDERR_FILENO)
}
guard let name = RecordName(arguments[2]) else { finish("sharelog-cold: not a record name: \(arguments[2])", 5, to: STDERR_FILENO) }
var options = ShareStore.Options()
options.clock = FixedClock(Timestamp(milliseconds: now))
do {
    switch try ShareStore.open(at: arguments[1], options: options).fetch(name) {
    case .live: finish("live", 0)
    case .expired: finish("expired", 4)
    case .notFound: finish("missing", 3)
    }
} catch {
    finish("sharelog-cold: \(error)", 1, to: STDERR_FILENO)
}
