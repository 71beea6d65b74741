import Foundation

/// One run of Debian's `wrk` against a server of the HTTP workload: `GET
/// /appclip?id=ID` with `Accept: text/vcard`, the ids taken in turn from a
/// list (9 live to 1 unknown, `HTTPBenchFiles`), each `wrk` thread from its
/// own place in it. The Lua script counts the unknown ids it sends and
/// prints one line that this parses, with `wrk`'s own counts of non-2xx
/// answers and socket errors and the percentiles of its latency histogram
/// (the same histogram `--latency` prints).
///
/// `wrk` is a closed loop: each connection sends its next request only when
/// the last answer is in, so a slow answer delays the requests behind it
/// instead of being measured with them (coordinated omission): its p99
/// under-reports the tail an open stream of clients would see. And it times
/// a request from its write to its answer: with `Connection: close`, the
/// connect and the TLS handshake are outside its latency (but inside
/// requests per second).
struct WrkRun {
    /// Answers per second of the run.
    let requestsPerSecond: Double
    let requests: Int
    /// Answers by status, as far as `wrk` tells without handing every body
    /// to Lua: 2xx/3xx; non-2xx up to the unknown ids sent (the 404s: that
    /// servers answer an unknown id 404 is checked before the rows,
    /// `HTTPStage.checkSameAnswers`); and non-2xx beyond them, which can
    /// only be other statuses. (Sent ids are counted as sent: up to one a
    /// connection is still in flight when the run ends.)
    let ok: Int
    let notFound: Int
    let otherStatus: Int
    /// Connect, read, write errors and timeouts, as `wrk` counts them.
    let socketErrors: Int
    /// Latency percentiles, ms.
    let p50: Double
    let p99: Double

    static let executable = "/usr/bin/wrk"

    /// The options of one run.
    struct Load {
        let url: String
        let connections: Int
        let threads: Int
        let seconds: Int
        let close: Bool
    }

    /// Runs `wrk` as `command` prefixes it (the client cores), with
    /// `script` reading ids from `list`.
    static func run(_ load: Load, script: String, list: String, command: ([String]) -> [String]) throws -> WrkRun {
        try run(load, script: script, headers: ["Accept: text/vcard"], scriptArguments: { [list, String($0)] }, command: command)
    }

    /// Runs `wrk` as `command` prefixes it, with `script` (which ends with
    /// `summary`), `headers` on every request, and after `--` the
    /// arguments `scriptArguments` gives for the number of `wrk` threads.
    static func run(
        _ load: Load, script: String, headers: [String], scriptArguments: (_ threads: Int) -> [String], command: ([String]) -> [String]
    ) throws -> WrkRun {
        let threads = max(1, min(load.threads, load.connections))
        var arguments = [
            executable, "-t", String(threads), "-c", String(load.connections), "-d", "\(load.seconds)s", "--timeout", "10s",
            "--latency", "-s", script,
        ]
        arguments += headers.flatMap { ["-H", $0] }
        if load.close { arguments += ["-H", "Connection: close"] }
        arguments += [load.url, "--"] + scriptArguments(threads)
        let full = command(arguments)
        let outcome = try ProcessRunner.run(full[0], Array(full.dropFirst()), timeout: .seconds(Int64(load.seconds) + 60))
        let printed = outcome.outputText
        guard outcome.status == 0, let line = printed.split(separator: "\n").last(where: { $0.hasPrefix("sharelog-wrk ") }) else {
            throw BenchError.process("wrk against \(load.url) exited \(outcome.status): \(printed.suffix(400)) \(outcome.error.suffix(400))")
        }
        var values: [String: Double] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        func value(_ key: String) throws -> Double {
            guard let value = values[key] else { throw BenchError.process("wrk's summary lacks \(key): \(line)") }
            return value
        }
        let requests = try value("requests")
        let seconds = try value("duration_us") / 1e6
        guard seconds > 0 else { throw BenchError.process("wrk ran for no time: \(line)") }
        let non2xx = Int(try value("non2xx")), unknownSent = Int(try value("unknown_sent"))
        return WrkRun(
            requestsPerSecond: requests / seconds, requests: Int(requests), ok: Int(requests) - non2xx,
            notFound: min(non2xx, unknownSent), otherStatus: max(0, non2xx - unknownSent),
            socketErrors: Int(try value("connect") + value("read") + value("write") + value("timeout")),
            p50: try value("p50_us") / 1000, p99: try value("p99_us") / 1000)
    }

    /// The Lua script. Arguments after `--`: the id list's path and the
    /// number of `wrk` threads; beside the list, `PATH.unknown` flags each
    /// line 1 for an unknown id, 0 for a live one, so the unknown ids are
    /// counted as they are sent. No `response` function:
    /// it would hand every body to Lua as a string, and that copy alone
    /// held nginx to 80% of what it serves with a lighter client here.
    static let script = """
        -- sharelog-bench (Benchmarks/BenchmarkKit/WrkRun.swift): GET /appclip?id=ID
        -- for each id of a list in turn; unknown ids counted as they are sent.
        local requests = {}
        local unknown = {}
        local index = 1

        function init(args)
            for id in io.lines(args[1]) do
                requests[#requests + 1] = wrk.format(nil, "/appclip?id=" .. id)
            end
            for flag in io.lines(args[1] .. ".unknown") do
                unknown[#unknown + 1] = flag == "1"
            end
            local stride = math.floor(#requests / tonumber(args[2]))
            index = ((number - 1) * stride) % #requests + 1
        end

        function request()
            local r = requests[index]
            if unknown[index] then sentUnknown = sentUnknown + 1 end
            index = index + 1
            if index > #requests then index = 1 end
            return r
        end

        """ + summary

    /// The part every script of these runs ends with: `setup` numbers the
    /// threads (`number`, from 1), and `done` prints the line `run` parses,
    /// summing the threads' `sentUnknown`.
    static let summary = """
        sentUnknown = 0
        local threads = {}

        function setup(thread)
            table.insert(threads, thread)
            thread:set("number", #threads)
        end

        function done(summary, latency, requests)
            local sent = 0
            for _, thread in ipairs(threads) do
                sent = sent + thread:get("sentUnknown")
            end
            local e = summary.errors
            io.write(string.format(
                "sharelog-wrk requests=%d duration_us=%d non2xx=%d unknown_sent=%d connect=%d read=%d write=%d timeout=%d p50_us=%d p99_us=%d\\n",
                summary.requests, summary.duration, e.status, sent, e.connect, e.read, e.write, e.timeout,
                latency:percentile(50.0), latency:percentile(99.0)))
        end

        """
}
