import Foundation
import TestSupport
import Testing
@testable import LMDB
import TestTraits

/// liblmdb truncates `data.mdb` to the map's size whenever it maps it with
/// `MDB_WRITEMAP`. A process that opens the environment with a smaller map
/// than another process's must not cut the file under the other's map:
/// the other would die of SIGBUS at its next write past the cut.
@Suite(.hangDeadline) struct MapSizeAcrossProcessesTests {
    @Test func openingWithASmallerMapKeepsTheFileWholeForAnotherProcess() throws {
        let directory = TemporaryDirectory()
        let scratch = TemporaryDirectory()
        let peer = try Peer("hold-large-map", directory: directory.path, scratch: scratch, "\(4 << 20)")
        #expect(try peer.nextLine("open with a 4 MiB map") == "ready \(4 << 20)")

        var options = Environment.Options()
        options.mapSize = 256 << 10
        let env = try Environment.open(at: directory.path, databases: ["data"], options: options)
        let data = try env.database("data")
        #expect(env.info.mapSize == 4 << 20)
        #expect(try Self.fileSize(directory) == 4 << 20)

        // The peer writes 700 pages, past the end of a 256 KiB map.
        peer.go()
        #expect(try peer.nextLine("write 700 values of a page each") == "wrote 701")
        let outcome = try peer.finish()
        #expect(outcome.status == 0 && !outcome.signaled, "\(String(decoding: outcome.error, as: UTF8.self))")
        #expect(try env.read { txn in try txn.count(in: data) } == 701)
        try env.write { txn in try txn.put([2], forKey: Array("after".utf8), in: data) }
        #expect(try env.read { txn in try txn.count(in: data) } == 702)
        #expect(try Self.fileSize(directory) == 4 << 20)
    }

    static func fileSize(_ directory: TemporaryDirectory) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appending("data.mdb"))
        return (attributes[.size] as? Int) ?? -1
    }
}
