import Foundation
import Glibc
import Testing
import TestSupport
import TestTraits

/// `sharelog http --cert --key` on SIGHUP (docs/OPERATIONS.md "Reloading
/// on SIGHUP"), with Debian's curl, `openssl s_client` and Python's
/// `ssl` and `http.client` as the clients: connections made after the
/// reload get the new certificate, and the connections open before it (a
/// kept-alive one between two requests, and one in the middle of sending
/// its request) are answered, over the TLS session they began, under the
/// old one. A pair that cannot be used changes nothing.
///
/// Two certificate authorities, each made by `openssl` for the test, sign
/// the old and the new certificate: a client that trusts only one of them
/// tells which certificate a connection got. The gateway waits 600 s for
/// silent connections (`--idle-timeout`, `--header-timeout`), so those the
/// test holds open are never closed for being slow.
@Suite(.serialized, .hangDeadline, .ownThread) struct GatewayCertificateReloadTests {
    /// Opens two connections trusting only the CA of `sys.argv[2]`: one asks
    /// for the association file and stays open, the other sends half of a
    /// request. Prints `{"ready": …}`, waits (60 s at most) for the file
    /// `sys.argv[3]`, then asks again on the first connection and finishes
    /// the second's request; prints one JSON line for each answer, with the
    /// SHA-256 of the certificate its connection got.
    static let heldConnections = """
        import hashlib, http.client, json, os, socket, ssl, sys, time
        port, ca, go = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        context = ssl.create_default_context(cafile=ca)
        path = "/.well-known/apple-app-site-association"
        def fingerprint(sock):
            return hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()
        kept = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=60)
        kept.request("GET", path)
        first = kept.getresponse()
        first.read()
        opened = kept.sock
        half = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=60), server_hostname="127.0.0.1")
        half.sendall(("GET %s HTTP/1.1\\r\\nHost: cards.example.com\\r\\n" % path).encode())
        print(json.dumps({"ready": first.status, "certificate": fingerprint(opened)}), flush=True)
        deadline = time.monotonic() + 60
        while not os.path.exists(go) and time.monotonic() < deadline:
            time.sleep(0.01)
        same = kept.sock is opened
        kept.request("GET", path)
        certificate = fingerprint(kept.sock)
        second = kept.getresponse()
        second.read()
        print(json.dumps({"kept": second.status, "sameConnection": same, "certificate": certificate, "closes": second.will_close}), flush=True)
        half.sendall(b"Connection: close\\r\\n\\r\\n")
        answer = b""
        while True:
            chunk = half.recv(65536)
            if not chunk:
                break
            answer += chunk
        print(json.dumps({"half": int(answer.split(b" ")[1]), "certificate": fingerprint(half)}), flush=True)
        """

    /// The gateway's certificate and key files, replaced as an operator
    /// would: new files renamed over the old ones.
    struct Files {
        let certificate: String, key: String

        func install(certificate source: String, key keySource: String) throws {
            try Self.replace(certificate, with: source)
            try Self.replace(key, with: keySource)
        }

        static func replace(_ path: String, with source: String) throws {
            try FileManager.default.copyItem(atPath: source, toPath: path + ".new")
            guard rename(path + ".new", path) == 0 else { throw HarnessFailure.unexpected("rename to \(path): errno \(errno)") }
        }
    }

    /// A gateway over TLS with the certificate of `authority`, through
    /// files in `directory` that the test may replace.
    static func start(_ fixture: ProcessStore, _ authority: TestCertificateAuthority) throws -> (GatewayProcess, Files) {
        let files = Files(certificate: fixture.directory.appending("gateway.pem"), key: fixture.directory.appending("gateway.key"))
        try files.install(certificate: authority.serverCertificate, key: authority.serverKey)
        let gateway = try fixture.gateway(
            at: ProcessClock.serving,
            ProcessApps.arguments + ["--cert", files.certificate, "--key", files.key, "--idle-timeout", "600", "--header-timeout", "600"])
        return (gateway, files)
    }

    /// Sends SIGHUP to `gateway` and returns the line it logs about it.
    static func reload(_ gateway: GatewayProcess) throws -> String {
        let before = gateway.lines.count
        kill(gateway.pid, SIGHUP)
        var found: String?
        try Deadline.block(until: "the gateway logs the SIGHUP; it logged \(gateway.lines)", timeout: .seconds(30), every: .milliseconds(5)) {
            gateway.pump()
            found = gateway.lines.dropFirst(before).first { $0.hasPrefix("sharelog: signal SIGHUP:") }
            return found != nil
        }
        return found!
    }

    /// curl's exit status for a new connection that trusts only `ca`, and
    /// the status code it got (empty when it got none).
    static func newConnection(_ gateway: GatewayProcess, trusting ca: String) throws -> (exit: Int32, code: String) {
        let ran = try CurlClient.run(["--cacert", ca, "--output", "/dev/null", "--write-out", "%{http_code}", gateway.baseURL + "/.well-known/apple-app-site-association"])
        return (ran.status, ran.status == 0 ? ran.text : "")
    }

    /// The certificate a new connection gets, as `openssl s_client` prints
    /// it (PEM, whitespace dropped).
    static func servedCertificate(_ gateway: GatewayProcess) throws -> String {
        let shown = CLIResult(try Subprocess.run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(gateway.port)", "-servername", "localhost"], timeout: .seconds(20)))
        let text = shown.text
        guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----"), let end = text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex) else {
            throw HarnessFailure.unexpected("openssl s_client printed no certificate: \(text) \(shown.error)")
        }
        return String(text[begin.lowerBound..<end.upperBound].filter { !$0.isWhitespace })
    }

    /// A PEM file's first certificate, whitespace dropped; and the SHA-256
    /// of its DER form, as `openssl x509` computes it.
    static func certificate(in path: String) throws -> (pem: String, sha256: String) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let begin = try #require(text.range(of: "-----BEGIN CERTIFICATE-----"))
        let end = try #require(text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex))
        let printed = CLIResult(try Subprocess.run("/usr/bin/openssl", ["x509", "-in", path, "-noout", "-fingerprint", "-sha256"], timeout: .seconds(20)))
        let digest = try #require(printed.text.split(separator: "=").last, "\(printed.text)")
        return (String(text[begin.lowerBound..<end.upperBound].filter { !$0.isWhitespace }),
                digest.filter { $0 != ":" && !$0.isWhitespace }.lowercased())
    }

    /// The JSON object on `line`.
    static func object(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test func newConnectionsGetTheNewCertificateAndThoseOpenBeforeFinishWithTheOld() throws {
        let fixture = try ProcessStore()
        let old = try TestCertificateAuthority(in: try Self.subdirectory("old", of: fixture))
        let new = try TestCertificateAuthority(in: try Self.subdirectory("new", of: fixture))
        let oldCertificate = try Self.certificate(in: old.serverCertificate)
        let newCertificate = try Self.certificate(in: new.serverCertificate)
        #expect(oldCertificate.pem != newCertificate.pem)
        let (gateway, files) = try Self.start(fixture, old)
        defer { _ = try? gateway.stop() }
        #expect(try Self.servedCertificate(gateway) == oldCertificate.pem)

        let go = fixture.directory.appending("go")
        let client = try Subprocess("/usr/bin/python3", ["-c", Self.heldConnections, "\(gateway.port)", old.caCertificate, go], environment: [:])
        defer { client.kill() }
        var printed: [UInt8] = []
        try Deadline.block(until: "the Python client holds its two connections", timeout: .seconds(30), every: .milliseconds(5)) {
            printed += client.readOutput(waitingAtMost: 5) ?? []
            guard client.isRunning || String(decoding: printed, as: UTF8.self).contains("\n") else {
                throw HarnessFailure.endedEarly("the Python client", before: "it was ready", log: String(decoding: client.errorOutput, as: UTF8.self))
            }
            return String(decoding: printed, as: UTF8.self).contains("\n")
        }
        let ready = try Self.object(String(decoding: printed, as: UTF8.self).split(separator: "\n")[0])
        #expect(ready["ready"] as? Int == 200)
        #expect(ready["certificate"] as? String == oldCertificate.sha256)

        try files.install(certificate: new.serverCertificate, key: new.serverKey)
        let line = try Self.reload(gateway)
        #expect(line == "sharelog: signal SIGHUP: reloaded --cert \(files.certificate) and --key \(files.key): "
            + "new connections get them; connections already open finish with the old ones")
        #expect(try Self.servedCertificate(gateway) == newCertificate.pem, "a new connection gets the new certificate")
        let trustingNew = try Self.newConnection(gateway, trusting: new.caCertificate)
        #expect(trustingNew.exit == 0 && trustingNew.code == "200", "\(trustingNew)")
        let trustingOld = try Self.newConnection(gateway, trusting: old.caCertificate)
        #expect(trustingOld.exit == 60, "curl's 'peer certificate cannot be authenticated': the old certificate is no longer served")

        #expect(FileManager.default.createFile(atPath: go, contents: Data()))
        let outcome = try client.finish(timeout: .seconds(60))
        let lines = String(decoding: printed + outcome.output, as: UTF8.self).split(separator: "\n")
        #expect(outcome.status == 0, "\(String(decoding: outcome.error, as: UTF8.self))")
        try #require(lines.count == 3, "\(lines) \(String(decoding: outcome.error, as: UTF8.self))")
        let kept = try Self.object(lines[1])
        #expect(kept["kept"] as? Int == 200, "the kept-alive connection is answered")
        #expect(kept["sameConnection"] as? Bool == true, "over the connection it had")
        #expect(kept["certificate"] as? String == oldCertificate.sha256)
        #expect(kept["closes"] as? Bool == true, "and told to close it, so that its next request gets the new certificate")
        let half = try Self.object(lines[2])
        #expect(half["half"] as? Int == 200, "the request that was half sent is answered")
        #expect(half["certificate"] as? String == oldCertificate.sha256)

        let stopped = try gateway.stop()
        #expect(stopped.status == 0, "\(stopped.error)")
    }

    @Test func aPairThatCannotBeUsedKeepsTheOldCertificate() throws {
        let fixture = try ProcessStore()
        let old = try TestCertificateAuthority(in: try Self.subdirectory("old", of: fixture))
        let new = try TestCertificateAuthority(in: try Self.subdirectory("new", of: fixture))
        let oldCertificate = try Self.certificate(in: old.serverCertificate)
        let (gateway, files) = try Self.start(fixture, old)
        defer { _ = try? gateway.stop() }

        // The new certificate with the old key: GnuTLS refuses the pair.
        try files.install(certificate: new.serverCertificate, key: old.serverKey)
        let mismatched = try Self.reload(gateway)
        #expect(mismatched == "sharelog: signal SIGHUP: could not reload --cert/--key, still serving the certificate it had: "
            + "libmicrohttpd could not use them (its reason is on the lines above); give a PEM certificate chain and its PEM private key")
        #expect(gateway.lines.contains { $0.hasPrefix("sharelog: http libmicrohttpd: ") && $0.contains("do not match") }, "\(gateway.lines)")
        #expect(try Self.servedCertificate(gateway) == oldCertificate.pem)

        let garbageFile = fixture.directory.appending("garbage")
        #expect(FileManager.default.createFile(atPath: garbageFile, contents: Data("no key here\n".utf8)))
        try Files.replace(files.key, with: garbageFile)
        let garbage = try Self.reload(gateway)
        #expect(garbage == "sharelog: signal SIGHUP: could not reload --cert/--key, still serving the certificate it had: "
            + "\(files.key): not a PEM file (no -----BEGIN line)")

        #expect(try Self.servedCertificate(gateway) == oldCertificate.pem)
        let trustingOld = try Self.newConnection(gateway, trusting: old.caCertificate)
        #expect(trustingOld.exit == 0 && trustingOld.code == "200", "\(trustingOld)")
        #expect(try gateway.stop().status == 0)
    }

    /// A new directory `name` in the fixture's.
    static func subdirectory(_ name: String, of fixture: ProcessStore) throws -> String {
        let path = fixture.directory.appending(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }
}
