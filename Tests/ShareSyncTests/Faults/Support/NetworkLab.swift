import Foundation
import TestSupport

/// Two network namespaces joined by a veth pair, made for one test and
/// removed by `tearDown` (and on deinit), even when the test fails: the
/// server's side holds `serverAddress`, the client's `clientAddress`.
/// Names carry a random suffix, so runs never meet.
///
/// Faults are injected on both sides' egress: loss, duplication and a
/// partition with nftables rules in a table of the lab's own, a rate limit
/// with the `tbf` qdisc, and delay and reordering with `netem` where the
/// kernel has it (`netemUnavailable`). Every command runs through
/// `Subprocess`, under a deadline.
final class NetworkLab {
    static let serverAddress = "10.77.0.1"
    static let clientAddress = "10.77.0.2"
    /// The nftables table that holds the lab's faults, in each namespace.
    static let faultTable = "sharelog_faults"

    /// Whether this machine allows the lab, and if not, why.
    struct Availability: Sendable {
        let reason: String?
        var isAvailable: Bool { reason == nil }
    }

    /// Probed once: root, `ip` and `nft` present, and a namespace can be
    /// made (then removed). The reason for a skip is printed here, since
    /// `.enabled(if:)` only says the test was skipped.
    static let availability: Availability = {
        let reason = probe()
        if let reason { print("NetworkFaultTests: skipped: \(reason)") }
        return Availability(reason: reason)
    }()

    private static func probe() -> String? {
        guard getuid() == 0 else { return "network namespaces need root (uid \(getuid()))" }
        guard let ip = tool("ip") else { return "no ip command (Debian's iproute2)" }
        guard tool("nft") != nil else { return "no nft command (Debian's nftables)" }
        guard tool("tc") != nil else { return "no tc command (Debian's iproute2)" }
        let name = "sharelog-probe-\(suffix())"
        guard let added = try? Subprocess.run(ip, ["netns", "add", name], timeout: .seconds(20)), added.status == 0, !added.signaled else {
            return "ip netns add fails here (a container without CAP_SYS_ADMIN?)"
        }
        _ = try? Subprocess.run(ip, ["netns", "del", name], timeout: .seconds(20))
        return nil
    }

    /// The path of a system tool, looked for where Debian puts it.
    static func tool(_ name: String) -> String? {
        ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func suffix() -> String { String(UInt32.random(in: 0...UInt32.max), radix: 16) }

    let serverNamespace: String
    let clientNamespace: String
    let serverLink: String
    let clientLink: String
    private let ip: String
    private let nft: String
    private let tc: String
    private var torn = false

    /// Makes the namespaces and the veth pair, addresses them and brings
    /// the links up; on any failure removes what it made and throws.
    init() throws {
        let suffix = Self.suffix()
        serverNamespace = "sharelog-nf-\(suffix)-s"
        clientNamespace = "sharelog-nf-\(suffix)-c"
        serverLink = "slvs\(suffix)"
        clientLink = "slvc\(suffix)"
        guard let ip = Self.tool("ip"), let nft = Self.tool("nft"), let tc = Self.tool("tc") else {
            throw HarnessFailure.unexpected("ip, nft or tc is missing")
        }
        (self.ip, self.nft, self.tc) = (ip, nft, tc)
        do {
            try command(ip, "netns", "add", serverNamespace)
            try command(ip, "netns", "add", clientNamespace)
            try command(ip, "link", "add", serverLink, "type", "veth", "peer", "name", clientLink)
            try command(ip, "link", "set", serverLink, "netns", serverNamespace)
            try command(ip, "link", "set", clientLink, "netns", clientNamespace)
            for (namespace, link, address) in [(serverNamespace, serverLink, Self.serverAddress), (clientNamespace, clientLink, Self.clientAddress)] {
                try command(ip, "-n", namespace, "addr", "add", "\(address)/24", "dev", link)
                // One segment per packet, as on a wire: veth would otherwise pass
                // 64 KB offload packets, and a fault would hit few, large ones.
                try command(ip, "-n", namespace, "link", "set", link, "gso_max_segs", "1", "up")
                try command(ip, "-n", namespace, "link", "set", "lo", "up")
            }
        } catch {
            tearDown()
            throw error
        }
    }

    deinit { tearDown() }

    /// Removes both namespaces, which removes the veth pair with them.
    /// Idempotent. Processes still running in a namespace keep it alive,
    /// nameless, until they end: stop them first.
    func tearDown() {
        guard !torn else { return }
        torn = true
        for namespace in [serverNamespace, clientNamespace] {
            _ = try? Subprocess.run(ip, ["netns", "del", namespace], timeout: .seconds(20))
        }
        _ = try? Subprocess.run(ip, ["link", "del", serverLink], timeout: .seconds(20))
    }

    /// Whether a namespace of this lab (or its link) is still there, for the test's own check of its cleanup.
    func leftovers() throws -> [String] {
        let namespaces = String(decoding: try Subprocess.run(ip, ["netns", "list"], timeout: .seconds(20)).output, as: UTF8.self)
        let links = String(decoding: try Subprocess.run(ip, ["-o", "link", "show"], timeout: .seconds(20)).output, as: UTF8.self)
        return [serverNamespace, clientNamespace, serverLink, clientLink].filter { namespaces.contains($0) || links.contains($0) }
    }

    /// The launcher that runs a program in `namespace`.
    func launcher(_ namespace: String) -> [String] { [ip, "netns", "exec", namespace] }

    /// Runs `program arguments…`; throws with its standard error when it fails.
    @discardableResult
    private func command(_ program: String, _ arguments: String...) throws -> String {
        let outcome = try Subprocess.run(program, arguments, timeout: .seconds(30))
        guard outcome.status == 0, !outcome.signaled else {
            throw HarnessFailure.failed(([program] + arguments).joined(separator: " "), status: outcome.status, log: String(decoding: outcome.error, as: UTF8.self))
        }
        return String(decoding: outcome.output, as: UTF8.self)
    }

    /// Runs `nft -f` in each namespace on `script`, after `{LINK}` and
    /// `{PEER}` in it become that side's link and the other side's address.
    private func nftBothSides(_ script: String) throws {
        let sides = [(serverNamespace, serverLink, Self.clientAddress), (clientNamespace, clientLink, Self.serverAddress)]
        for (namespace, link, peer) in sides {
            let text = script.replacingOccurrences(of: "{LINK}", with: link).replacingOccurrences(of: "{PEER}", with: peer)
            let file = NSTemporaryDirectory() + "sharelog-nft-\(namespace).nft"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            try command(ip, "netns", "exec", namespace, nft, "-f", file)
        }
    }

    /// An nft script: the lab's table with one egress chain holding `rule`.
    private static func egress(_ rule: String) -> String {
        "table ip \(faultTable) {\n  chain egress {\n    type filter hook output priority 0; policy accept;\n    \(rule)\n  }\n}\n"
    }

    /// Drops `percent` % of the packets each side sends, at random.
    func loss(percent: Int) throws {
        try nftBothSides(Self.egress("oifname \"{LINK}\" numgen random mod 100 < \(percent) counter drop"))
    }

    /// Sends every packet twice, each side.
    func duplication() throws {
        try nftBothSides(Self.egress("oifname \"{LINK}\" counter dup to {PEER} device \"{LINK}\""))
    }

    /// Drops everything each side sends: a partition, until `clearFaults`.
    func partition() throws {
        try nftBothSides(Self.egress("oifname \"{LINK}\" counter drop"))
    }

    /// Limits what the server sends to `rate` (tc syntax, `8mbit`) with a token bucket.
    func rateLimit(_ rate: String) throws {
        try command(ip, "netns", "exec", serverNamespace, tc, "qdisc", "add", "dev", serverLink, "root", "tbf", "rate", rate, "burst", "32kbit", "latency", "400ms")
    }

    /// Adds `netem` with `parameters` (`delay 50ms`, `delay 20ms reorder 25% 50%`)
    /// on both sides' links.
    func netem(_ parameters: [String]) throws {
        for (namespace, link) in [(serverNamespace, serverLink), (clientNamespace, clientLink)] {
            let arguments = ["netns", "exec", namespace, tc, "qdisc", "add", "dev", link, "root", "netem"] + parameters
            let outcome = try Subprocess.run(ip, arguments, timeout: .seconds(30))
            guard outcome.status == 0, !outcome.signaled else {
                throw HarnessFailure.failed("ip " + arguments.joined(separator: " "), status: outcome.status, log: String(decoding: outcome.error, as: UTF8.self))
            }
        }
    }

    /// Nil when this kernel has `netem`; else why not (tc's own words).
    func netemUnavailable() throws -> String? {
        let outcome = try Subprocess.run(ip, ["netns", "exec", serverNamespace, tc, "qdisc", "add", "dev", serverLink, "root", "netem", "delay", "1ms"], timeout: .seconds(30))
        guard outcome.status == 0 else { return "tc netem: \(String(decoding: outcome.error, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) (the kernel has no sch_netem)" }
        try clearFaults()
        return nil
    }

    /// Removes every fault: the nft tables and the root qdiscs.
    func clearFaults() throws {
        for (namespace, link) in [(serverNamespace, serverLink), (clientNamespace, clientLink)] {
            _ = try Subprocess.run(ip, ["netns", "exec", namespace, nft, "delete", "table", "ip", Self.faultTable], timeout: .seconds(30))
            _ = try Subprocess.run(ip, ["netns", "exec", namespace, tc, "qdisc", "del", "dev", link, "root"], timeout: .seconds(30))
        }
    }

    /// The packets the lab's nft rules have counted on each side, for the report.
    func faultCounters() throws -> String {
        try [serverNamespace, clientNamespace].map { namespace in
            let listed = try command(ip, "netns", "exec", namespace, nft, "list", "table", "ip", Self.faultTable)
            let packets = listed.components(separatedBy: "packets ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }.reduce(0, +)
            return "\(packets)"
        }.joined(separator: "/")
    }
}
