import Foundation
import FuzzTargets
import Testing

/// Replays the regression corpus (Tests/FuzzCorpus/TARGET/: inputs the
/// fuzzers found, each once a crash or a broken contract, now fixed) and
/// every target's seeds through the same entry points libFuzzer calls: no
/// input may trap or break a contract, and every refusal explains itself.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus")

    static func inputs(of target: FuzzTarget) throws -> [(name: String, bytes: [UInt8])] {
        let directory = corpus.appendingPathComponent(target.rawValue)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map { name in
            (name, Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func theRegressionCorpusReplaysCleanly(_ target: FuzzTarget) throws {
        let inputs = try Self.inputs(of: target)
        #expect(!inputs.isEmpty, "Tests/FuzzCorpus/\(target.rawValue) is empty")
        for input in inputs {
            let outcome = try target.run(input.bytes)
            if case .rejected(let reason) = outcome { #expect(!reason.isEmpty, "\(input.name)") }
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func theSeedsReplayCleanly(_ target: FuzzTarget) throws {
        #expect(!target.seeds.isEmpty)
        let outcomes = try target.seeds.map { try target.run($0) }
        #expect(outcomes.contains { if case .accepted = $0 { true } else { false } })
    }

    @Test func theCodecRefusesFlagsItCannotKeep() throws {
        let inputs = try Self.inputs(of: .codec)
        let found = try #require(inputs.first { $0.name == "undefined-flag-on-share-created" })
        #expect(try FuzzTarget.codec.run(found.bytes) == .rejected("event of kind 1 sets flags 182 that format 1 does not define"))
    }
}
