import Foundation

/// One scrape of a `--metrics` endpoint, fetched and parsed by Debian's
/// python3-prometheus-client (`text_string_to_metric_families`), a parser
/// nobody here wrote: a line it cannot parse fails the scrape.
public struct PrometheusScrape {
    /// The answer's `Content-Type`.
    public let contentType: String
    /// Each family's type as the parser read it, by the name it gives the
    /// family (a counter's without `_total`).
    public let types: [String: String]
    private let samples: [(name: String, labels: [String: String], value: Double)]

    private static let script = """
        import json, sys, urllib.request
        from prometheus_client.parser import text_string_to_metric_families
        with urllib.request.urlopen(sys.argv[1], timeout=10) as answer:
            content_type, text = answer.headers.get("Content-Type"), answer.read().decode("utf-8")
        types, samples = {}, []
        for family in text_string_to_metric_families(text):
            types[family.name] = family.type
            samples += [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]
        print(json.dumps({"contentType": content_type, "types": types, "samples": samples}))
        """

    /// Scrapes `http://ADDRESS/metrics`.
    public init(_ address: String) throws {
        let report = try Self.python(Self.script, ["http://\(address)/metrics"], "a scrape of \(address)")
        contentType = report["contentType"] as? String ?? ""
        types = report["types"] as? [String: String] ?? [:]
        samples = (report["samples"] as? [[String: Any]] ?? []).map {
            (name: $0["name"] as? String ?? "", labels: $0["labels"] as? [String: String] ?? [:], value: ($0["value"] as? NSNumber)?.doubleValue ?? .nan)
        }
    }

    /// The value of the sample `name` with exactly `labels`, or nil.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The `/healthz` or `/readyz` (or any path's) status and body at
    /// `address`, through Python's urllib.
    public static func status(of path: String, at address: String, method: String = "GET") throws -> (status: Int, body: String) {
        let script = """
            import json, sys, urllib.error, urllib.request
            request = urllib.request.Request(sys.argv[1], method=sys.argv[2])
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    status, body = answer.status, answer.read()
            except urllib.error.HTTPError as error:
                status, body = error.code, error.read()
            print(json.dumps({"status": status, "body": body.decode("utf-8")}))
            """
        let report = try python(script, ["http://\(address)\(path)", method], "\(method) \(path) at \(address)")
        return (report["status"] as? Int ?? 0, report["body"] as? String ?? "")
    }

    /// The one JSON object `script` printed; throws with its standard
    /// error when it failed or printed none.
    private static func python(_ script: String, _ arguments: [String], _ what: String) throws -> [String: Any] {
        let run = try Subprocess.run(
            "/usr/bin/python3", ["-c", script] + arguments,
            environment: ["PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"],
            timeout: .seconds(30))
        guard run.status == 0, !run.signaled, let report = (try? JSONSerialization.jsonObject(with: Data(run.output))) as? [String: Any] else {
            throw HarnessFailure.failed("python3 (\(what))", status: run.status, log: String(decoding: run.error + run.output, as: UTF8.self))
        }
        return report
    }

    /// The `HOST:PORT` of a process's `sharelog: metrics: serving … on
    /// tcp:HOST:PORT` line among `lines`.
    public static func address(in lines: [String]) -> String? {
        lines.lazy.compactMap { line -> String? in
            guard line.hasPrefix("sharelog: metrics: serving "), let on = line.range(of: " on tcp:", options: .backwards) else { return nil }
            return String(line[on.upperBound...])
        }.first
    }
}
