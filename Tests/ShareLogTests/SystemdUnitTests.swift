import Foundation
import Testing
import TestSupport
import TestTraits

/// The systemd units in Deploy/systemd (docs/OPERATIONS.md "Running it as
/// a service"): each one passes `systemd-analyze verify` with no warning
/// once its ExecStart names the built `sharelog`, and each keeps the
/// sandbox and the reload the docs promise.
@Suite(.hangDeadline) struct SystemdUnitTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Deploy/systemd")

    static let sandbox = [
        "Type=exec", "ExecReload=/bin/kill -HUP $MAINPID", "DynamicUser=yes", "User=sharelog", "StateDirectory=sharelog",
        "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
    ]

    @Test(arguments: ["sharelog-serve.service", "sharelog-http.service", "sharelog-relay.service"])
    func aUnitVerifiesCleanAndKeepsItsSandbox(_ name: String) throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map(String.init))
        for setting in Self.sandbox { #expect(lines.contains(setting), "\(name) lacks \(setting)") }
        #expect(text.contains("--log-format json") && text.contains("--metrics tcp:127.0.0.1:"), "\(name)")

        let directory = TemporaryDirectory("systemd")
        let unit = directory.appending(name)
        try Data(text.replacingOccurrences(of: "/usr/local/bin/sharelog", with: CLI.executable.path).utf8).write(to: URL(fileURLWithPath: unit))
        let verified = try Subprocess.run("/usr/bin/systemd-analyze", ["verify", "--man=no", unit], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(60))
        #expect(verified.status == 0 && !verified.signaled)
        #expect(String(decoding: verified.error + verified.output, as: UTF8.self) == "", "systemd-analyze has something to say about \(name)")
    }
}
