import Foundation
import TestSupport

/// Debian's headless Chromium loading a page as a person's browser would:
/// `--dump-dom` prints the document after it loaded (after any script
/// ran), `--screenshot` draws it at a phone's size. Each run has its own
/// profile and home under `home`, and a deadline.
struct ChromiumBrowser {
    static let executable = "/usr/bin/chromium"
    let home: String

    init(home: String) throws {
        self.home = home
        try FileManager.default.createDirectory(atPath: home + "/profile", withIntermediateDirectories: true)
    }

    private var environment: [String: String] {
        ["HOME": home, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": home + "/config", "XDG_CACHE_HOME": home + "/cache", "LANG": "C.UTF-8"]
    }

    private func run(_ arguments: [String]) throws -> CLIResult {
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(home)/profile", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
        ]
        let ran = CLIResult(try Subprocess.run(Self.executable, common + arguments, environment: environment, timeout: .seconds(60)))
        guard ran.succeeded else { throw HarnessFailure.failed("chromium \(arguments)", status: ran.status, log: ran.error) }
        return ran
    }

    /// The document at `url` once loaded, serialized.
    func dumpDOM(_ url: String) throws -> String { try run(["--dump-dom", url]).text }

    /// A PNG of `url` at `width`×`height`, written to `file`.
    func screenshot(_ url: String, to file: String, width: Int = 390, height: Int = 844) throws {
        _ = try run(["--screenshot=\(file)", "--window-size=\(width),\(height)", url])
    }
}

/// A document as Python's `html.parser` reads it: each element with its
/// attributes and its own text, in document order.
struct ParsedDocument {
    struct Element {
        let tag: String
        let attributes: [String: String]
        let text: String
        func has(class name: String) -> Bool { (attributes["class"] ?? "").split(separator: " ").contains(Substring(name)) }
    }

    let elements: [Element]

    static let parser = """
        import json, sys
        from html.parser import HTMLParser
        VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
        class Reader(HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True)
                self.elements, self.open = [], []
            def handle_starttag(self, tag, attrs):
                element = {"tag": tag, "attributes": {k: (v or "") for k, v in attrs}, "text": ""}
                self.elements.append(element)
                if tag not in VOID: self.open.append(element)
            def handle_endtag(self, tag):
                for index in range(len(self.open) - 1, -1, -1):
                    if self.open[index]["tag"] == tag:
                        del self.open[index:]
                        break
            def handle_data(self, data):
                if self.open: self.open[-1]["text"] += data
        reader = Reader()
        reader.feed(sys.stdin.read())
        reader.close()
        print(json.dumps(reader.elements))
        """

    init(_ html: String) throws {
        let parsed = CLIResult(try Subprocess.run(
            PythonClient.executable, ["-c", Self.parser], environment: PythonClient.environment, input: Array(html.utf8), timeout: .seconds(30)))
        guard parsed.succeeded, let list = try JSONSerialization.jsonObject(with: Data(parsed.output)) as? [[String: Any]] else {
            throw HarnessFailure.failed("python3 html.parser", status: parsed.status, log: parsed.error)
        }
        elements = list.map {
            Element(tag: $0["tag"] as? String ?? "", attributes: $0["attributes"] as? [String: String] ?? [:], text: $0["text"] as? String ?? "")
        }
    }

    /// The elements named `tag`.
    func all(_ tag: String) -> [Element] { elements.filter { $0.tag == tag } }

    /// The own text of the only element named `tag` with class `name` (any class when nil).
    func text(of tag: String, class name: String? = nil) -> String? {
        let matching = all(tag).filter { name == nil || $0.has(class: name!) }
        return matching.count == 1 ? matching[0].text : nil
    }

    /// Attribute names that run script (`onerror`, `onload`, …), on any element.
    var eventHandlers: [String] { elements.flatMap { $0.attributes.keys.filter { $0.lowercased().hasPrefix("on") } } }
}
