import Foundation
import Testing
import TestSupport
import TestTraits

/// `sharelog backup` and `sharelog restore` in real processes (docs/CLI.md
/// `backup`, `restore`; docs/OPERATIONS.md "Backups"): a backup made while
/// another process keeps creating shares restores, verifies, and holds no
/// card of a share that had ended, in any file of the backup or of the
/// restored store; each is a replica of its own; a restore after a share
/// in the backup ended wipes that card too.
@Suite(.hangDeadline, .ownThread) struct BackupProcessTests {
    static let created = "2026-12-01T09:00:00Z"
    /// The backup's time: the one-hour share has ended (never swept), the
    /// one-day share is live.
    static let takenAt = "2026-12-01T11:00:00Z"
    /// A day after `created`: the one-day share has ended too.
    static let dayLater = "2026-12-02T09:00:00Z"
    static let liveMarker = "Backup Live Marker 61c0"
    static let endedMarker = "Backup Ended Marker 0b7e"

    static func card(_ name: String) -> [UInt8] {
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:\(name)\r\nEND:VCARD\r\n".utf8)
    }

    /// A process that runs `sharelog share create` on `cli`'s store, one
    /// after another, until the file `stop` exists (or 5,000 shares): it
    /// exits 1 as soon as one fails.
    static func startWriter(_ cli: SharelogCLI, card: String, stop: String) throws -> Subprocess {
        let script = """
            i=0
            while [ ! -e "$5" ] && [ $i -lt 5000 ]; do
                "$1" --store "$2" --now "$3" share create "$4" --ttl 7d >/dev/null || exit 1
                i=$((i+1))
            done
            """
        return try Subprocess(
            "/bin/sh", ["-c", script, "writer", SharelogCLI.executable, cli.store, cli.now, card, stop], environment: SharelogCLI.environment)
    }

    @Test func aBackupMadeUnderLoadRestoresVerifiesAndHoldsNoCardOfAnEndedShare() throws {
        let directory = TemporaryDirectory("backup")
        let writer = SharelogCLI(store: directory.appending("store"), now: Self.created)
        let source = SharelogCLI(store: writer.store, now: Self.takenAt)
        let backupPath = directory.appending("backup")
        #expect(try writer.run("init").succeeded)
        let live = try #require(try writer.run("share", "create", "-", "--ttl", "1d", "--json", input: Self.card(Self.liveMarker)).json["id"] as? String)
        let ended = try #require(try writer.run("share", "create", "-", "--ttl", "1h", "--json", input: Self.card(Self.endedMarker)).json["id"] as? String)
        let writerCard = directory.appending("writer.vcf")
        try Data(Self.card("Written Under Load")).write(to: URL(fileURLWithPath: writerCard))

        // The writer runs before, during and after the backup.
        let stop = directory.appending("stop")
        let loop = try Self.startWriter(writer, card: writerCard, stop: stop)
        var stopped = false
        defer { if !stopped { loop.kill(); _ = try? loop.finish(timeout: .seconds(30)) } }
        try Deadline.block(until: "the writer has created 5 shares", every: .milliseconds(20)) { try writer.eventCount() >= 7 }
        let before = try writer.eventCount()
        let backup = try source.run("backup", backupPath, "--json")
        let after = try writer.eventCount()
        try Deadline.block(until: "the writer has created 3 more shares", every: .milliseconds(20)) { try writer.eventCount() >= after + 3 }
        #expect(FileManager.default.createFile(atPath: stop, contents: nil))
        let writing = try loop.finish(timeout: .seconds(60))
        stopped = true
        #expect(writing.status == 0 && !writing.signaled, "a share create failed while the backup ran: \(String(decoding: writing.error, as: UTF8.self))")

        #expect(backup.status == 0, "\(backup.error)")
        #expect(backup.json["expired"] as? Int == 1)
        #expect(backup.json["takenAt"] as? String == "2026-12-01T11:00:00.000Z")
        // The writer's shares, made at `created` for 7 days, end last.
        #expect(backup.json["deleteBy"] as? String == "2026-12-08T09:00:00.000Z")
        #expect(try StoreFiles.holding(Self.endedMarker, in: backupPath) == [])
        #expect(try StoreFiles.holding(Self.liveMarker, in: backupPath) == ["data.mdb"])
        // The store was only read: its ended share waits for its sweep.
        #expect(try StoreFiles.holding(Self.endedMarker, in: writer.store) == ["data.mdb"])

        // One snapshot: the store's log up to a point between the backup's
        // start and end, then the ended share's TTL end, which the copy
        // logged (counter 0: the same id on every replica).
        let held = try SharelogCLI(store: backupPath, now: Self.takenAt).logIDs()
        let copied = held.filter { !$0.hasSuffix(":0") }
        #expect(held.count == copied.count + 1)
        #expect(copied == Array(try writer.logIDs().prefix(copied.count)))
        #expect(copied.count >= before && copied.count <= after, "\(before) ≤ \(copied.count) ≤ \(after)")
        print("BackupProcessTests: the store held \(before) events as the backup began and \(after) as it ended; the backup holds \(copied.count)")

        // Restored at the backup's time: verifies, serves the live card,
        // answers the ended share as ended, and is a replica of its own.
        let restored = SharelogCLI(store: directory.appending("restored"), now: Self.takenAt)
        let restore = try restored.run("restore", backupPath, "--json")
        #expect(restore.status == 0, "\(restore.error)")
        #expect(try restored.verify() == 0)
        let ids = [try source.replicaID(), try #require(backup.json["replicaID"] as? String), try restored.replicaID()]
        #expect(Set(ids).count == 3, "store, backup, restored: \(ids)")
        #expect(restore.json["replicaID"] as? String == ids[2])
        #expect(restore.json["sourceReplicaID"] as? String == ids[0] && restore.json["backupReplicaID"] as? String == ids[1])
        #expect(try restored.run("share", "get", live).status == 0)
        #expect(try restored.run("share", "get", ended).status == 4)
        for path in [backupPath, restored.store] {
            #expect(try StoreFiles.holding(Self.endedMarker, in: path) == [], "\(path)")
        }
        #expect(try StoreFiles.holding(Self.liveMarker, in: restored.store) == ["data.mdb"])

        // Restored a day later, once the live share has ended too: its card
        // is in no file of that store, and the share reads as ended.
        let late = SharelogCLI(store: directory.appending("late"), now: Self.dayLater)
        let lateRestore = try late.run("restore", backupPath, "--json")
        #expect(lateRestore.status == 0, "\(lateRestore.error)")
        #expect(lateRestore.json["expired"] as? Int == 1)
        #expect(try late.verify() == 0)
        #expect(try StoreFiles.holding(Self.liveMarker, in: late.store) == [])
        #expect(try StoreFiles.holding(Self.endedMarker, in: late.store) == [])
        #expect(try late.run("share", "get", live).status == 4)
        #expect(try late.replicaID() != ids[2])

        // Neither command replaces anything: exit 5, nothing changed.
        let backupFiles = try StoreFiles(of: backupPath)
        let storeFiles = try StoreFiles(of: restored.store)
        #expect(try source.run("backup", backupPath).status == 5)
        #expect(try restored.run("restore", backupPath).status == 5)
        #expect(try StoreFiles(of: backupPath) == backupFiles)
        #expect(try StoreFiles(of: restored.store) == storeFiles)
        #expect(try restored.run("restore", writer.store).status == 3, "a store is not a backup")
    }
}
