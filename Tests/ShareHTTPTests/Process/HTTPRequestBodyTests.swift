import Foundation
import ShareHTTP
import ShareLog
import SharePrimitives
import ShareSync
import Testing
import TestSupport
import TestTraits

/// Request bodies through a real `HTTPServer` on 127.0.0.1, sent by
/// Python's `http.client` and raw sockets: the responder gets a body up to
/// its limit whole, with the fields the write API reads; a larger one is
/// dropped and answered 413 on a connection that closes; a body
/// trickled a byte at a time is cut off at the header deadline; a method
/// the responder takes no body for is answered from its header alone.
@Suite(.serialized, .hangDeadline) struct HTTPRequestBodyTests {
    /// Takes bodies of up to `limit` bytes for `POST /echo`, and answers
    /// with them: 200, the body as it came, and the fields it was sent with
    /// as `X-Seen-*` headers; 413 for a body over the limit. Keeps every
    /// request it was asked to answer.
    final class BodyEcho: HTTPResponder {
        static let limit = 1000
        let requests = Locked<[GatewayRequest]>([])

        func bodyLimit(for request: GatewayRequest) -> Int? {
            request.method == "POST" && request.target == "/echo" ? Self.limit : nil
        }

        func respond(to request: GatewayRequest) -> GatewayResponse {
            requests.withLock { $0.append(request) }
            if request.bodyOverLimit { return GatewayResponse(status: .contentTooLarge, route: .unknown) }
            guard request.method == "POST" else { return GatewayResponse(status: .methodNotAllowed, route: .unknown) }
            let seen = [
                HTTPHeader("X-Seen-Content-Type", request.contentType ?? "-"),
                HTTPHeader("X-Seen-Authorization", request.authorization ?? "-"),
                HTTPHeader("X-Seen-Idempotency-Key", request.idempotencyKey ?? "-"),
            ]
            return GatewayResponse(status: .ok, headers: seen, body: request.body, route: .unknown)
        }

        func answered(_ request: GatewayRequest, _ response: GatewayResponse, microseconds: Int64) -> LogRecord? { nil }
    }

    /// A server serving a `BodyEcho` on a free port, with a 2 s header deadline.
    static func serve(_ echo: BodyEcho) throws -> (server: HTTPServer, port: String) {
        var configuration = HTTPServerConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 0))
        configuration.headerTimeout = .seconds(2)
        let server = try HTTPServer(serving: echo, configuration: configuration, log: { _ in })
        guard case .tcp(_, let port) = server.endpoint else { throw HarnessFailure.unexpected("no TCP port: \(server.endpoint)") }
        return (server, String(port))
    }

    /// Sends `POST /echo` with a body of `size` bytes (byte i is i % 251)
    /// through `http.client`, chunked when asked, then `GET /other` on the
    /// same connection unless the server closed it; prints both answers.
    static let post = """
        import http.client, json, sys
        port, size, chunked = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "chunked"
        body = bytes(i % 251 for i in range(size))
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = {"Content-Type": "text/vcard", "Authorization": "Bearer slt_x", "Idempotency-Key": "k-1"}
        if chunked:
            c.request("POST", "/echo", body=iter([body[i:i + 700] for i in range(0, size, 700)]), headers=headers, encode_chunked=True)
        else:
            c.request("POST", "/echo", body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        out = {"status": r.status, "echoed": data == body, "length": len(data), "connection": r.getheader("Connection"),
               "contentType": r.getheader("X-Seen-Content-Type"), "authorization": r.getheader("X-Seen-Authorization"),
               "idempotencyKey": r.getheader("X-Seen-Idempotency-Key")}
        if r.getheader("Connection") != "close":
            c.request("GET", "/other")
            out["next"] = c.getresponse().status
        print(json.dumps(out))
        """

    @Test func aBodyUpToTheLimitReachesTheResponderWholeWithItsFields() throws {
        let echo = BodyEcho()
        let (server, port) = try Self.serve(echo)
        defer { server.stop() }
        for mode in ["length", "chunked"] {
            let report = try PythonClient.report(try PythonClient.run(Self.post, [port, "1000", mode]), "POST /echo, \(mode)")
            #expect(report["status"] as? Int == 200, "\(mode): \(report)")
            #expect(report["echoed"] as? Bool == true, "\(mode): the 1,000 bytes came back as sent: \(report)")
            #expect(report["contentType"] as? String == "text/vcard")
            #expect(report["authorization"] as? String == "Bearer slt_x")
            #expect(report["idempotencyKey"] as? String == "k-1")
            #expect(report["next"] as? Int == 405, "\(mode): the connection serves its next request: \(report)")
        }
    }

    @Test func aBodyOverTheLimitIsDroppedAndAnswered413OnAClosingConnection() throws {
        let echo = BodyEcho()
        let (server, port) = try Self.serve(echo)
        defer { server.stop() }
        for mode in ["length", "chunked"] {
            let report = try PythonClient.report(try PythonClient.run(Self.post, [port, "1001", mode]), "POST /echo, \(mode)")
            #expect(report["status"] as? Int == 413, "\(mode): \(report)")
            #expect(report["connection"] as? String == "close", "\(mode): \(report)")
        }
        let seen = echo.requests.withLock { $0 }
        #expect(seen.map(\.bodyOverLimit) == [true, true])
        #expect(seen.map(\.body) == [[], []], "the responder gets none of an oversized body")
    }

    /// Sends a `POST /echo` header announcing `Content-Length: 100`, then
    /// one body byte a second until the server closes the connection or
    /// `bound` seconds pass; prints how long it stayed open and what came back.
    static let trickle = """
        import json, socket, sys, time
        port, bound = int(sys.argv[1]), float(sys.argv[2])
        s = socket.create_connection(("127.0.0.1", port), timeout=bound)
        s.sendall(b"POST /echo HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Length: 100\\r\\n\\r\\n")
        start, answer, closed = time.monotonic(), b"", False
        while time.monotonic() - start < bound and not closed:
            try:
                s.send(b"x")
                s.settimeout(1)
                data = s.recv(65536)
                if not data: closed = True
                answer += data
            except socket.timeout:
                pass
            except OSError:
                closed = True
        print(json.dumps({"closed": closed, "answer": answer.decode("latin-1")}))
        """

    @Test func aBodyTrickledByteByByteIsCutOffAtTheHeaderDeadline() throws {
        let echo = BodyEcho()
        let (server, port) = try Self.serve(echo)
        defer { server.stop() }
        // 100 bytes at one a second would take 100 s; the deadline is 2 s.
        let report = try PythonClient.report(try PythonClient.run(Self.trickle, [port, "20"], timeout: .seconds(40)), "trickle")
        #expect(report["closed"] as? Bool == true, "cut off before 20 s: \(report)")
        #expect(echo.requests.withLock { $0.isEmpty }, "the responder never saw the unfinished request")
    }

    @Test func aMethodTheResponderTakesNoBodyForIsAnsweredFromItsHeader() throws {
        let echo = BodyEcho()
        let (server, port) = try Self.serve(echo)
        defer { server.stop() }
        let put = try CurlClient.fetch("http://127.0.0.1:\(port)/echo", ["-X", "PUT", "--data-binary", String(repeating: "y", count: 5000)])
        #expect(put.status == 405)
        #expect(echo.requests.withLock { $0.map(\.body) } == [[]], "no body handed over for a method without a limit")
    }
}
