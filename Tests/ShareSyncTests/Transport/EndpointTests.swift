import Testing
import TestSupport
import ShareSync

/// `--listen` and `--connect` take endpoints as text; each form parses to
/// the endpoint it names, and each bad one is refused with the reason.
@Suite struct EndpointTests {
    @Test(arguments: [
        ("unix:/tmp/sharelog.sock", Endpoint.unix(path: "/tmp/sharelog.sock")),
        ("unix:relative/s.sock", .unix(path: "relative/s.sock")),
        ("tcp:127.0.0.1:7070", .tcp(host: "127.0.0.1", port: 7070)),
        ("tcp:0.0.0.0:65535", .tcp(host: "0.0.0.0", port: 65535)),
        ("tcp:localhost:0", .tcp(host: "localhost", port: 0)),
        ("tcp:7070", .tcp(host: "127.0.0.1", port: 7070)),
        ("tcp:[::1]:7070", .tcp(host: "::1", port: 7070)),
        ("stdio", .stdio),
        ("exec:ssh host sharelog serve --stdio", .command("ssh host sharelog serve --stdio")),
    ])
    func eachFormParsesToItsEndpoint(text: String, endpoint: Endpoint) throws {
        #expect(try Endpoint(parsing: text) == endpoint)
    }

    @Test(arguments: ["unix:/tmp/sharelog.sock", "tcp:127.0.0.1:7070", "tcp:[::1]:7070", "stdio", "exec:ssh host sharelog serve --stdio"])
    func anEndpointPrintsAsTheTextThatNamesIt(text: String) throws {
        #expect(try Endpoint(parsing: text).description == text)
    }

    @Test(arguments: [
        ("http://127.0.0.1:80", EndpointError.unknownForm("http://127.0.0.1:80")),
        ("127.0.0.1:7070", .unknownForm("127.0.0.1:7070")),
        ("unix:", .emptyPath),
        ("exec:", .unknownForm("exec:")),
        ("exec:   ", .unknownForm("exec:   ")),
        ("unix:/" + String(repeating: "a", count: 107), .pathTooLong("/" + String(repeating: "a", count: 107), limit: 107)),
        ("tcp:example.com:80", .invalidHost("example.com")),
        ("tcp:256.0.0.1:80", .invalidHost("256.0.0.1")),
        ("tcp:::1:80", .invalidHost("::1")),
        ("tcp:[127.0.0.1]:80", .invalidHost("[127.0.0.1]")),
        ("tcp:[::1:80", .invalidHost("[::1:80")),
        ("tcp:[::1]80", .invalidPort("80")),
        ("tcp:127.0.0.1:", .invalidPort("")),
        ("tcp:127.0.0.1:65536", .invalidPort("65536")),
        ("tcp:127.0.0.1:+80", .invalidPort("+80")),
        ("tcp:127.0.0.1:8O", .invalidPort("8O")),
        ("tcp:123456", .invalidPort("123456")),
    ])
    func eachBadFormIsRefusedWithItsReason(text: String, error: EndpointError) {
        #expect(throws: error) { try Endpoint(parsing: text) }
    }

    @Test func anUnknownFormIsAnsweredWithTheFormsThatWork() {
        let message = EndpointError.unknownForm("ftp:x").description
        #expect(message.contains("'ftp:x'"))
        for form in ["unix:PATH", "tcp:HOST:PORT", "[::1]", "stdio"] {
            #expect(message.contains(form), "\(form) missing from: \(message)")
        }
    }

    /// The kernel's limit is the oracle: a path of 107 bytes binds, and a
    /// path one byte longer is refused before any socket is made.
    @Test func theLongestSocketPathTheKernelTakesIsAccepted() throws {
        let directory = TemporaryDirectory("path")
        let prefix = directory.path + "/"
        let path = prefix + String(repeating: "p", count: 107 - prefix.utf8.count)
        let listener = try Listener(listeningOn: Endpoint(parsing: "unix:" + path))
        listener.close()
        #expect(throws: EndpointError.pathTooLong(path + "p", limit: 107)) { try Endpoint(parsing: "unix:" + path + "p") }
    }
}
