import Foundation
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

/// The 1 MiB limit on a card (CloudKit's record limit, docs/CLI.md): a card
/// of exactly 1_048_576 bytes is kept and given back byte for byte, one
/// byte more is refused with the exact error and nothing written.
@Suite(.ownThread) struct CardSizeLimitTests {
    /// A valid card of exactly `byteCount` bytes: a NOTE of seeded random
    /// letters and digits fills it, so any byte out of place shows.
    static func card(byteCount: Int) -> [UInt8] {
        let head = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Big Card\r\nNOTE:".utf8)
        let tail = Array("\r\nEND:VCARD\r\n".utf8)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var generator = SeededGenerator(seed: 0x1_0000_0000)
        let filler = (0..<(byteCount - head.count - tail.count)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
        return head + filler + tail
    }

    /// The message the CLI prints, pinned on purpose: it is what a user reads.
    static let tooLarge = "The vCard is 1048577 bytes, more than the limit of 1048576 bytes (1 MiB). Use a smaller photo and export the card again."

    @Test func aCardOfExactlyOneMebibyteIsKeptByteForByte() throws {
        let test = try TestStore()
        let card = Self.card(byteCount: 1_048_576)
        #expect(card.count == 1_048_576)
        let created = try test.store.create(vCard: card)
        #expect(try test.store.fetch(created.recordName) == .live(Share(
            recordName: created.recordName, vCard: card, createdAt: created.createdAt, expiresAt: created.expiresAt)))
        guard case .shareCreated(let logged) = try test.store.events(after: 0).first?.event.kind else {
            Issue.record("the log does not start with the creation")
            return
        }
        #expect(logged.vCard == card)
        #expect(try test.store.verify().isConsistent)
    }

    @Test func oneByteMoreIsRefusedWithTheExactErrorAndNothingWritten() throws {
        let test = try TestStore()
        let card = Self.card(byteCount: 1_048_577)
        #expect(throws: ShareLogError.invalidVCard(.tooLarge(byteCount: 1_048_577))) { try test.store.create(vCard: card) }
        #expect(throws: ShareLogError.invalidVCard(.tooLarge(byteCount: 1_048_577))) { try test.store.create(vCards: [smallCard(), card]) }
        let name = RecordName.random()
        let foreign = ForeignReplica().created(name, vCard: card, at: test.clock.now(), ttl: .seconds(3600))
        #expect(throws: ShareLogError.invalidEvent(foreign.id, reason: .invalidCard(name, .tooLarge(byteCount: 1_048_577)))) {
            try test.store.apply([foreign])
        }
        #expect(try test.store.stats().events == 0)
    }

    @Test func theCLIStoresAndPrintsAOneMebibyteCardAndRefusesOneByteMore() throws {
        let dir = TemporaryDirectory()
        let cli = CLI(store: dir.appending("store"))
        _ = try cli.run("init")
        let card = Data(Self.card(byteCount: 1_048_576))
        let created = try cli.run("share", "create", "-", "--json", input: card)
        #expect(created.status == 0)
        let id = try #require(created.json["id"] as? String)
        let fetched = try cli.run("share", "get", id, "--vcard")
        #expect(fetched.status == 0)
        #expect(Data(fetched.output.utf8) == card)
        let before = try cli.dataFile()
        let refused = try cli.run("share", "create", "-", input: Data(Self.card(byteCount: 1_048_577)))
        #expect(refused.status == 5)
        #expect(refused.error == "sharelog: not a vCard ShareLog accepts, so nothing was written. \(Self.tooLarge)\n")
        #expect(refused.output == "")
        #expect(try cli.dataFile() == before)
        #expect(try cli.run("stats", "--json").json["events"] as? Int == 1)
    }
}
