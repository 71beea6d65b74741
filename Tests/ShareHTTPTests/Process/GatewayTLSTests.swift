import Foundation
import Glibc
import Testing
import TestSupport

/// A real `sharelog http --cert --key` checked by Debian's `openssl
/// s_client` and curl: TLS 1.2 and 1.3 are spoken, TLS 1.1 and 1.0 are
/// refused, the certificate verifies against the test CA, and every
/// answer over TLS carries `Strict-Transport-Security`.
///
/// Certificates are checked against the machine's real clock, as TLS
/// clients do; the gateway's own clock is `--now`.
@Suite(.serialized) struct GatewayTLSTests {
    static let openssl = "/usr/bin/openssl"

    /// `openssl s_client` at `port` with `version` (`-tls1_3`, …), trusting
    /// `ca`, allowing old protocols on its side (`@SECLEVEL=0`), and sending
    /// one HTTP request once the handshake is done.
    static func handshake(port: UInt16, _ version: String, ca: String) throws -> CLIResult {
        let request = Array("GET /apple-app-site-association HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        return CLIResult(try Subprocess.run(
            openssl, ["s_client", "-connect", "127.0.0.1:\(port)", version, "-CAfile", ca, "-cipher", "DEFAULT:@SECLEVEL=0", "-ign_eof", "-servername", "localhost"],
            input: request, timeout: .seconds(20)))
    }

    /// The protocol s_client says it agreed on, from `New, TLSv1.3, Cipher is …`; nil with no cipher.
    static func agreed(_ result: CLIResult) -> String? {
        guard let line = result.text.split(separator: "\n").first(where: { $0.hasPrefix("New, ") }), !line.contains("Cipher is (NONE)") else { return nil }
        return line.split(separator: ",").dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func onlyTLS12And13AreSpoken() throws {
        let fixture = try ProcessStore()
        let authority = try TestCertificateAuthority(in: fixture.directory.path)
        let gateway = try fixture.gateway(at: ProcessClock.serving, ProcessApps.arguments + ["--cert", authority.serverCertificate, "--key", authority.serverKey])
        defer { _ = try? gateway.stop() }
        #expect(gateway.baseURL == "https://127.0.0.1:\(gateway.port)")

        for (flag, name) in [("-tls1_3", "TLSv1.3"), ("-tls1_2", "TLSv1.2")] {
            let spoken = try Self.handshake(port: gateway.port, flag, ca: authority.caCertificate)
            // No exit status: libmicrohttpd closes after `Connection: close`
            // without a close_notify, which OpenSSL 3's s_client reports as an error.
            #expect(Self.agreed(spoken) == name, "\(flag): \(spoken.text)")
            #expect(spoken.text.contains("Verify return code: 0 (ok)"), "\(flag)")
            #expect(spoken.text.contains("HTTP/1.1 200 OK"), "\(flag): HTTP over it")
            #expect(spoken.text.contains("\"ABCDE12345.com.example.cards.Clip\""), "\(flag)")
        }
        for flag in ["-tls1_1", "-tls1"] {
            let refused = try Self.handshake(port: gateway.port, flag, ca: authority.caCertificate)
            #expect(refused.status != 0, "\(flag) must be refused: \(refused.text)")
            #expect(Self.agreed(refused) == nil, "\(flag): \(refused.text)")
            #expect(!refused.text.contains("HTTP/1.1"), "\(flag)")
        }
        try gateway.waitForAccessLines(2)
        #expect(gateway.accessLines.count == 2, "only the two good handshakes made requests: \(gateway.lines)")
    }

    /// The same client flags do speak TLS 1.1 to a server that allows it
    /// (`openssl s_server -tls1_1`): the refusal above is the gateway's.
    @Test func theTLS11ClientWorksAgainstAServerThatAllowsIt() throws {
        let fixture = try ProcessStore()
        let authority = try TestCertificateAuthority(in: fixture.directory.path)
        let server = try Subprocess(
            Self.openssl, ["s_server", "-accept", "0", "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0", "-cert", authority.serverCertificate,
                           "-key", authority.serverKey, "-www"], environment: [:])
        defer { server.kill() }
        var printed: [UInt8] = []
        var port: UInt16?
        try Deadline.block(until: "openssl s_server says where it accepts", timeout: .seconds(20), every: .milliseconds(10)) {
            if let read = server.readOutput(waitingAtMost: 10) { printed += read }
            let text = String(decoding: printed, as: UTF8.self)
            port = text.split(separator: "\n").first { $0.hasPrefix("ACCEPT") }.flatMap { $0.split(separator: ":").last }.flatMap { UInt16($0) }
            guard port != nil || server.isRunning else { throw HarnessFailure.endedEarly("openssl s_server", before: "it accepted", log: String(decoding: server.errorOutput, as: UTF8.self)) }
            return port != nil
        }
        let spoken = try Self.handshake(port: try #require(port), "-tls1_1", ca: authority.caCertificate)
        #expect(Self.agreed(spoken) != nil && spoken.text.contains("Protocol  : TLSv1.1"), "\(spoken.text)")
        #expect(spoken.text.contains("HTTP/1.0 200 ok"), "\(spoken.text)")
    }

    @Test func curlFetchesOverHTTPSWithTheTestCAAndSeesHSTS() throws {
        let fixture = try ProcessStore()
        let id = try fixture.share(ProcessCards.plain)
        let authority = try TestCertificateAuthority(in: fixture.directory.path)
        let gateway = try fixture.gateway(at: ProcessClock.serving, ProcessApps.arguments + ["--cert", authority.serverCertificate, "--key", authority.serverKey])
        defer { _ = try? gateway.stop() }
        let link = gateway.baseURL + "/appclip?id=" + id
        let trusted = ["--cacert", authority.caCertificate]

        let card = try CurlClient.fetch(link, trusted + ["-H", "Accept: text/vcard"])
        #expect(card.status == 200)
        #expect(card.body == ProcessCards.plain)
        #expect(card.header("Strict-Transport-Security") == "max-age=31536000")
        #expect(card.header("X-Content-Type-Options") == "nosniff")

        for (target, status) in [("/appclip?id=" + id, 200), ("/appclip?id=6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f", 404), ("/appclip", 400),
                                  ("/.well-known/apple-app-site-association", 200)] {
            let answer = try CurlClient.fetch(gateway.baseURL + target, trusted)
            #expect(answer.status == status, "\(target)")
            #expect(answer.header("Strict-Transport-Security") == "max-age=31536000", "\(target)")
        }
        let versions = try CurlClient.run(trusted + ["--tlsv1.2", "--tls-max", "1.2", "--output", "/dev/null", "--write-out", "%{http_code}", link])
        #expect(versions.text == "200", "TLS 1.2 with curl: \(versions.error)")

        let untrusted = try CurlClient.run(["--output", "/dev/null", link])
        #expect(untrusted.status == 60, "no CA, no card: curl exits 60 (peer certificate cannot be authenticated): \(untrusted.error)")
        let plain = try CurlClient.run(["--output", "/dev/null", "--write-out", "%{http_code}", "http://127.0.0.1:\(gateway.port)/appclip?id=" + id])
        #expect(!(plain.succeeded && plain.text == "200"), "no card over plain HTTP on the TLS port")
        let again = try CurlClient.fetch(link, trusted)
        #expect(again.status == 200, "the gateway serves on after a plain-HTTP client")
    }
}
