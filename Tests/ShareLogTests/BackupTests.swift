import Foundation
import Glibc
import SampleCards
import Testing
import TestSupport
import TestTraits
@testable import ShareLog

/// Backups that forget (docs/OPERATIONS.md "Backups"): a backup holds the
/// card of every share live when it was taken and not one byte of a card
/// whose share had ended, has a replica id of its own, names in its
/// manifest the day after which it holds no live card, and never replaces
/// anything; a restore takes a new replica id and wipes what ended since.
@Suite(.hangDeadline, .ownThread) struct BackupTests {
    /// `ManualClock`'s start, 2027-01-15T08:00:00Z, and times after it.
    static let start = Timestamp(milliseconds: 1_800_000_000_000)
    static let twoHoursLater = Timestamp(milliseconds: 1_800_007_200_000)
    static let twoDaysLater = Timestamp(milliseconds: 1_800_172_800_000)

    /// A card whose bytes include `marker`, with a photo of `photoBytes`
    /// (a card over about 2 KiB lies on overflow pages).
    static func card(_ marker: String, photoBytes: Int? = nil) -> [UInt8] {
        var card = SampleCard.make(index: 7, photoBytes: photoBytes)
        card.insert(contentsOf: Array("NOTE:\(marker)\r\n".utf8), at: card.count - "END:VCARD\r\n".utf8.count)
        return card
    }

    /// A store holding, at two hours after the start: a share live for two
    /// days (`live`), one that ended after an hour and was never swept
    /// (`ended`), and one revoked and never compacted (`revoked`), with
    /// neighbours so that pages are shared.
    struct Fixture {
        let test: TestStore
        let live: CreatedShare
        let ended: CreatedShare
        let revoked: CreatedShare
        let markers = (live: "Backup-Live-4e1f", ended: "Backup-Ended-9a0c", revoked: "Backup-Revoked-77d2")

        init(photoBytes: Int? = nil, label: String = #function) throws {
            test = try TestStore(label: label)
            live = try test.store.create(vCard: BackupTests.card(markers.live, photoBytes: photoBytes), ttl: .seconds(2 * 86_400))
            ended = try test.store.create(vCard: BackupTests.card(markers.ended, photoBytes: photoBytes), ttl: .seconds(3_600))
            revoked = try test.store.create(vCard: BackupTests.card(markers.revoked, photoBytes: photoBytes), ttl: .seconds(86_400))
            for index in 0..<30 { _ = try test.store.create(vCard: smallCard(index), ttl: .seconds(3 * 86_400)) }
            try test.store.revoke(revoked.recordName)
            test.clock.advance(by: .seconds(7_200))
        }

        func path(_ name: String) -> String { test.directory.appending(name) }
    }

    /// Opens a backup or a restored store read-only: a look that writes
    /// nothing to it.
    static func openToRead(_ path: String) throws -> ShareStore {
        var options = ShareStore.Options()
        options.environment.readOnly = true
        return try ShareStore.open(at: path, options: options)
    }

    @Test(arguments: [nil, 60_000] as [Int?])
    func aBackupHoldsTheLiveCardAndNoByteOfAnEndedOne(photoBytes: Int?) throws {
        let fixture = try Fixture(photoBytes: photoBytes)
        let store = fixture.test.store
        let destination = fixture.path("backup")
        // The store itself still holds all three cards: the backup must
        // leave out what the store has not swept or compacted yet.
        for marker in [fixture.markers.live, fixture.markers.ended, fixture.markers.revoked] {
            #expect(try StoreFiles.holding(marker, in: fixture.path("store")) == ["data.mdb"], "\(marker)")
        }

        let report = try store.backup(to: destination)

        #expect(try FileManager.default.contentsOfDirectory(atPath: destination).sorted() == ["backup.json", "data.mdb"])
        #expect(try StoreFiles.holding(fixture.markers.live, in: destination) == ["data.mdb"])
        #expect(try StoreFiles.holding(fixture.markers.ended, in: destination) == [])
        #expect(try StoreFiles.holding(fixture.markers.revoked, in: destination) == [])
        // The store was not written to: its ended share is still unswept.
        #expect(try StoreFiles.holding(fixture.markers.ended, in: fixture.path("store")) == ["data.mdb"])
        #expect(try store.stats().due == 1)
        // Nothing but the store and the backup beside it: no staging left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.test.directory.path).sorted() == ["backup", "store"])

        // 31 live shares (the 30 neighbours and `live`); the ended one
        // expired in the copy; two cards left out, the ended and the revoked.
        #expect(report.expired == 1 && report.redacted == 2)
        let manifest = report.manifest
        #expect(manifest.takenAt == Self.twoHoursLater)
        #expect(manifest.shares == 31)
        #expect(manifest.deleteBy == Timestamp(milliseconds: 1_800_259_200_000), "the neighbours' end, three days after the start")
        #expect(manifest.sourceReplicaID == store.replicaID && manifest.replicaID != store.replicaID)
        #expect(try BackupManifest.read(from: destination) == manifest)

        let backup = try Self.openToRead(destination)
        defer { backup.close() }
        #expect(try backup.verify().isConsistent)
        #expect(backup.replicaID == manifest.replicaID)
        #expect(try backup.fetch(fixture.live.recordName, at: Self.twoHoursLater) == .live(Share(
            recordName: fixture.live.recordName, vCard: Self.card(fixture.markers.live, photoBytes: photoBytes),
            createdAt: Self.start, expiresAt: Self.twoDaysLater)))
        #expect(try backup.fetch(fixture.ended.recordName, at: Self.twoHoursLater) == .expired(
            at: Timestamp(milliseconds: 1_800_003_600_000), reason: .ttl))
    }

    /// The manifest's date is the last live share's end, exactly; a backup
    /// holding no live card has none.
    @Test func theManifestNamesTheEndOfTheLastLiveShareItHolds() throws {
        let test = try TestStore()
        _ = try test.store.create(vCard: smallCard(1), ttl: .seconds(2 * 86_400))
        _ = try test.store.create(vCard: smallCard(2), ttl: .seconds(3_600))
        let first = try test.store.backup(to: test.directory.appending("first"))
        #expect(first.manifest.deleteBy == Self.twoDaysLater)
        #expect(first.manifest.shares == 2)
        let json = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: test.directory.appending("first/backup.json")))) as? [String: Any])
        #expect(json["deleteBy"] as? String == "2027-01-17T08:00:00.000Z")
        #expect(json["takenAt"] as? String == "2027-01-15T08:00:00.000Z")
        #expect(json["format"] as? Int == 1)

        let after = try test.store.backup(to: test.directory.appending("after"), at: Self.twoDaysLater)
        #expect(after.manifest.shares == 0)
        #expect(after.manifest.deleteBy == nil)
    }

    /// A destination that exists is refused, and nothing is written: not
    /// to it, not beside it.
    @Test(arguments: ["empty directory", "file", "directory with a file"])
    func aBackupRefusesADestinationThatExists(_ kind: String) throws {
        let fixture = try Fixture()
        let destination = fixture.path("backup")
        switch kind {
        case "file": try Data("mine".utf8).write(to: URL(fileURLWithPath: destination))
        default:
            try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
            if kind != "empty directory" { try Data("mine".utf8).write(to: URL(fileURLWithPath: destination + "/notes.txt")) }
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: fixture.test.directory.path).sorted()
        #expect(throws: ShareLogError.backupRefused(.destinationExists(path: destination))) {
            try fixture.test.store.backup(to: destination)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.test.directory.path).sorted() == before)
        switch kind {
        case "file": #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data("mine".utf8))
        case "empty directory": #expect(try FileManager.default.contentsOfDirectory(atPath: destination) == [])
        default: #expect(try FileManager.default.contentsOfDirectory(atPath: destination) == ["notes.txt"])
        }
    }

    /// A destination inside the store's directory is refused before
    /// anything is made: a file made there would change the directory,
    /// which the store takes for a sign of a copy, and cost it its replica
    /// id at its next open.
    @Test func aBackupRefusesADestinationInsideTheStoresDirectory() throws {
        let fixture = try Fixture()
        let store = fixture.path("store")
        let before = try FileManager.default.contentsOfDirectory(atPath: store).sorted()
        for destination in [store + "/backup", fixture.path("store/../store/deeper/backup")] {
            #expect(throws: ShareLogError.backupRefused(.destinationInStore(path: destination, store: store))) {
                try fixture.test.store.backup(to: destination)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).sorted() == before)
        var options = ShareStore.Options()
        options.environment.durability = .noSync
        let again = try ShareStore.open(at: store, options: options)
        defer { again.close() }
        #expect(again.identityRenewal == nil && again.replicaID == fixture.test.store.replicaID)
    }

    /// A restore is a replica of its own: two restores of one backup get
    /// two new ids, neither the store's nor the backup's, and keep them
    /// when opened again; each serves the live card and verifies.
    @Test func aRestoreTakesAReplicaIDOfItsOwnAndServesTheLiveCard() throws {
        let fixture = try Fixture()
        let backup = try fixture.test.store.backup(to: fixture.path("backup")).manifest
        var restored: Set<ReplicaID> = []
        for name in ["one", "two"] {
            let report = try ShareStore.restore(from: fixture.path("backup"), to: fixture.path(name), at: Self.twoHoursLater)
            #expect(report.replicaID != backup.sourceReplicaID && report.replicaID != backup.replicaID)
            #expect(report.shares == 31 && report.expired == 0)
            restored.insert(report.replicaID)
            let store = try ShareStore.open(at: fixture.path(name))
            defer { store.close() }
            #expect(store.identityRenewal == nil, "the restore recorded the store's home where it lives")
            #expect(store.replicaID == report.replicaID)
            #expect(try store.verify().isConsistent)
            #expect(try store.fetch(fixture.live.recordName, at: Self.twoHoursLater) == .live(Share(
                recordName: fixture.live.recordName, vCard: Self.card(fixture.markers.live),
                createdAt: Self.start, expiresAt: Self.twoDaysLater)))
        }
        #expect(restored.count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.test.directory.path).sorted() == ["backup", "one", "store", "two"])
    }

    /// The bound, measured: a backup holds the card of a share live when
    /// it was taken until the backup is deleted (its manifest names the
    /// share's end), and a restore at or after that end holds none of the
    /// card's bytes and answers it as ended; one a millisecond before still
    /// serves it.
    @Test(arguments: [nil, 60_000] as [Int?])
    func aRestoreAfterAShareInTheBackupEndedHoldsNoneOfItsCard(photoBytes: Int?) throws {
        let test = try TestStore()
        let marker = "Backup-Ends-Later-31b5"
        let share = try test.store.create(vCard: Self.card(marker, photoBytes: photoBytes), ttl: .seconds(2 * 86_400))
        let backup = test.directory.appending("backup")
        #expect(try test.store.backup(to: backup).manifest.deleteBy == Self.twoDaysLater)

        let before = try ShareStore.restore(from: backup, to: test.directory.appending("before"), at: Timestamp(milliseconds: 1_800_172_799_999))
        #expect(before.shares == 1 && before.expired == 0)
        #expect(try StoreFiles.holding(marker, in: test.directory.appending("before")) == ["data.mdb"])

        let after = try ShareStore.restore(from: backup, to: test.directory.appending("after"), at: Self.twoDaysLater)
        #expect(after.shares == 0 && after.expired == 1 && after.redacted == 1)
        #expect(try StoreFiles.holding(marker, in: test.directory.appending("after")) == [])
        // The backup itself still holds it: files at rest do not forget.
        #expect(try StoreFiles.holding(marker, in: backup) == ["data.mdb"])
        let restored = try ShareStore.open(at: test.directory.appending("after"))
        defer { restored.close() }
        #expect(try restored.fetch(share.recordName, at: Self.start) == .expired(at: Self.twoDaysLater, reason: .ttl))
        #expect(try restored.verify().isConsistent)
    }

    /// A restore refuses, writing nothing, a path that holds a store or
    /// anything else, a source that is no backup, and a manifest it cannot
    /// read.
    @Test func aRestoreRefusesWhatItCannotTakeAndWritesNothing() throws {
        let fixture = try Fixture()
        let backup = fixture.path("backup")
        try fixture.test.store.backup(to: backup)
        let storeBytes = try Data(contentsOf: URL(fileURLWithPath: fixture.path("store/data.mdb")))
        #expect(throws: ShareLogError.backupRefused(.destinationExists(path: fixture.path("store")))) {
            try ShareStore.restore(from: backup, to: fixture.path("store"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path("store/data.mdb"))) == storeBytes)
        #expect(throws: ShareLogError.backupRefused(.notABackup(path: fixture.path("store")))) {
            try ShareStore.restore(from: fixture.path("store"), to: fixture.path("restored"))
        }
        #expect(throws: ShareLogError.backupRefused(.notABackup(path: fixture.path("nowhere")))) {
            try ShareStore.restore(from: fixture.path("nowhere"), to: fixture.path("restored"))
        }
        let manifest = URL(fileURLWithPath: backup + "/backup.json")
        let original = try Data(contentsOf: manifest)
        try Data(String(decoding: original, as: UTF8.self).replacingOccurrences(of: "\"format\":1", with: "\"format\":2").utf8).write(to: manifest)
        #expect(throws: ShareLogError.backupRefused(.unsupportedManifest(path: backup, found: 2, supported: 1))) {
            try ShareStore.restore(from: backup, to: fixture.path("restored"))
        }
        try Data(original.prefix(40)).write(to: manifest)
        #expect(throws: ShareLogError.backupRefused(.damagedManifest(path: backup))) {
            try ShareStore.restore(from: backup, to: fixture.path("restored"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.test.directory.path).sorted() == ["backup", "store"])
    }

    /// A staging directory that a killed backup left, which may hold ended
    /// shares' cards, is removed by the next backup beside the same
    /// destination; one whose lock is held (a backup in progress) is not.
    @Test func aBackupRemovesTheStagingDirectoryAKilledOneLeftButNotALiveOnes() throws {
        let fixture = try Fixture()
        let abandoned = fixture.path(".backup.sharelog-backup-abandoned")
        let running = fixture.path(".backup.sharelog-backup-running")
        for directory in [abandoned, running] {
            try FileManager.default.createDirectory(atPath: directory + "/work", withIntermediateDirectories: true)
            try Data(fixture.markers.ended.utf8).write(to: URL(fileURLWithPath: directory + "/work/data.mdb"))
        }
        let held = open(running, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        defer { close(held) }

        let report = try fixture.test.store.backup(to: fixture.path("backup"))
        #expect(report.leftoversRemoved == 1)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: running + "/work/data.mdb"))
    }
}
