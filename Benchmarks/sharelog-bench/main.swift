// sharelog-bench: ShareLog side by side with raw LMDB in C, SQLite and Redis.
// It parses arguments, calls BenchmarkKit and prints; see BENCHMARKS.md.
//
// The serve, follow and relay commands are the far side of the sync workloads;
// the http command is the HTTP and upload workloads' gateway, and the anchor
// command the upload workload's library and SQLite creators.
import BenchmarkKit
import Foundation

let usage = """
    usage: sharelog-bench [run] [--quick] [--out DIR] [--work DIR] [--only create,read,sweep,replay,preview,catchup,follow,clip,snapshot,relay,http,upload]
                          [--static-cold PATH] [--swift-version TEXT]
           sharelog-bench charts --results results.json --out DIR
           sharelog-bench serve --store PATH --listen unix:PATH --now MS
           sharelog-bench follow --store PATH --connect unix:PATH --now MS
           sharelog-bench relay --store PATH --nats URL[,URL…] --stream-key FILE --stream NAME --subject-prefix TOKEN --now MS
           sharelog-bench http --store PATH --now MS [--threads N] [--cert F --key F] [--access-log PATH] [--write-api]
           sharelog-bench anchor --system ShareLog|SQLite --store PATH --count N --creators N --pool N
    """

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("sharelog-bench: \(message)\n".utf8))
    exit(code)
}

/// The options after the command: `--name value` for names in `values`,
/// `--name` alone for names in `flags`, as (name, value) pairs.
func options(_ arguments: ArraySlice<String>, flags: [String], values: [String]) -> [(name: String, value: String)] {
    var parsed: [(name: String, value: String)] = []
    var rest = arguments
    while let argument = rest.popFirst() {
        let name = String(argument.drop { $0 == "-" })
        if argument.hasPrefix("--") && flags.contains(name) {
            parsed.append((name, ""))
        } else if argument.hasPrefix("--") && values.contains(name), let value = rest.popFirst() {
            parsed.append((name, value))
        } else {
            fail("unexpected '\(argument)'\n\(usage)", code: 2)
        }
    }
    return parsed
}

func value(_ name: String, in options: [(name: String, value: String)]) -> String? {
    options.last { $0.name == name }?.value
}

var arguments = CommandLine.arguments.dropFirst()
let command = arguments.first.flatMap { $0.hasPrefix("--") ? nil : $0 } ?? "run"
if arguments.first == command { arguments = arguments.dropFirst() }

switch command {
case "charts":
    // Writes the charts' data and scripts again from a run's results.json.
    let given = options(arguments, flags: [], values: ["results", "out"])
    guard let results = value("results", in: given), let out = value("out", in: given) else {
        fail("charts needs --results and --out\n\(usage)", code: 2)
    }
    do {
        let report = try JSONDecoder().decode(BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: results)))
        for script in [try SweepChart.write(report, to: out), try FollowChart.write(report, to: out)].compactMap({ $0 }) {
            print(script)
        }
    } catch {
        fail("\(results): \(error)", code: 1)
    }
case "serve", "follow":
    let endpoint = command == "serve" ? "listen" : "connect"
    let given = options(arguments, flags: [], values: ["store", endpoint, "now"])
    guard let store = value("store", in: given), let address = value(endpoint, in: given),
          let now = value("now", in: given).flatMap({ Int64($0) })
    else { fail("\(command) needs --store, --\(endpoint) and --now\n\(usage)", code: 2) }
    let (code, error) = command == "serve"
        ? SyncPeer.serve(store: store, listen: address, now: now)
        : SyncPeer.follow(store: store, connect: address, now: now)
    if let error { fail(error, code: code) }
    exit(code)
case "relay":
    let given = options(arguments, flags: [], values: ["store", "nats", "stream-key", "stream", "subject-prefix", "now"])
    guard let store = value("store", in: given), let nats = value("nats", in: given), let key = value("stream-key", in: given),
          let stream = value("stream", in: given), let prefix = value("subject-prefix", in: given),
          let now = value("now", in: given).flatMap({ Int64($0) })
    else { fail("relay needs --store, --nats, --stream-key, --stream, --subject-prefix and --now\n\(usage)", code: 2) }
    let (code, error) = SyncPeer.relay(store: store, nats: nats, streamKey: key, stream: stream, subjectPrefix: prefix, now: now)
    if let error { fail(error, code: code) }
    exit(code)
case "http":
    let given = options(arguments, flags: ["write-api"], values: ["store", "now", "threads", "cert", "key", "access-log"])
    guard let store = value("store", in: given), let now = value("now", in: given).flatMap({ Int64($0) }) else {
        fail("http needs --store and --now\n\(usage)", code: 2)
    }
    guard let threads = Int(value("threads", in: given) ?? "2"), threads >= 1 else { fail("--threads needs a positive number", code: 2) }
    let (code, error) = HTTPPeer.serve(
        store: store, now: now, threads: threads, certificate: value("cert", in: given), key: value("key", in: given),
        accessLog: value("access-log", in: given) ?? "/dev/null", writeAPI: given.contains { $0.name == "write-api" })
    if let error { fail(error, code: code) }
    exit(code)
case "anchor":
    let given = options(arguments, flags: [], values: ["system", "store", "count", "creators", "pool"])
    guard let system = value("system", in: given), let store = value("store", in: given),
          let count = value("count", in: given).flatMap({ Int($0) }), let creators = value("creators", in: given).flatMap({ Int($0) }),
          let pool = value("pool", in: given).flatMap({ Int($0) })
    else { fail("anchor needs --system, --store, --count, --creators and --pool\n\(usage)", code: 2) }
    let (code, error) = await UploadAnchor.create(system: system, store: store, count: count, creators: creators, pool: pool)
    if let error { fail(error, code: code) }
    exit(code)
case "run":
    let given = options(arguments, flags: ["quick"], values: ["out", "work", "only", "static-cold", "swift-version"])
    let out = value("out", in: given) ?? "bench-results"
    let work = value("work", in: given)
        ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("sharelog-bench-\(getpid())")
    let only = value("only", in: given).map { Set($0.split(separator: ",").map(String.init)) }
    let known = Set(BenchmarkRunner.workloads.map(\.name))
    if let unknown = only?.subtracting(known).first { fail("unknown workload '\(unknown)'; known: \(known.sorted())", code: 2) }
    let context = BenchContext(
        configuration: given.contains { $0.name == "quick" } ? .quick : .full, workDirectory: work,
        executables: .besideThisProcess(staticCold: value("static-cold", in: given)),
        log: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
    do {
        defer { try? FileManager.default.removeItem(atPath: work) }
        let machine = MachineInfo.current(swift: value("swift-version", in: given) ?? "unknown (pass --swift-version)")
        let report = try await BenchmarkRunner(context: context, only: only).run(on: machine)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let table = ReportTable.render(report)
        try report.json().write(to: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
        try (table + "\n").write(toFile: (out as NSString).appendingPathComponent("table.txt"), atomically: true, encoding: .utf8)
        try SweepChart.write(report, to: out)
        try FollowChart.write(report, to: out)
        print(table)
    } catch {
        fail("\(error)", code: 1)
    }
default:
    fail("unknown command '\(command)'\n\(usage)", code: 2)
}
