import Foundation
import Glibc
import TestSupport
import Testing
@testable import LMDB
import TestTraits

/// Programs this process starts inherit no descriptor of an open store:
/// liblmdb opens `data.mdb` without `O_CLOEXEC`, and a child that inherited
/// it could read every record, and would keep the file's blocks allocated
/// after the store is deleted, for as long as it runs.
@Suite(.hangDeadline) struct ChildProcessTests {
    /// What a child process has open, as `ls -l /proc/self/fd/` in it
    /// prints it. `ls` is spawned with its standard streams on pipes, so
    /// anything else it lists (but the directory it reads) it inherited.
    static func descriptorsOfAChild() throws -> String {
        let outcome = try Subprocess.run("/bin/ls", ["-l", "/proc/self/fd/"])
        #expect(!outcome.signaled && outcome.status == 0)
        return String(decoding: outcome.output, as: UTF8.self)
    }

    @Test(arguments: [false, true])
    func aChildProcessInheritsNoDescriptorOfAnOpenStore(readOnly: Bool) throws {
        let directory = TemporaryDirectory()
        do {
            let env = try Environment.open(at: directory.path, databases: ["data"])
            let data = try env.database("data")
            try env.write { txn in try txn.put([1], forKey: [1], in: data) }
        }
        var options = Environment.Options()
        options.readOnly = readOnly
        let env = try Environment.open(at: directory.path, databases: ["data"], options: options)
        #expect(try env.read { txn in try txn.count(in: env.database("data")) } == 1)
        // This process has both files open; the child neither.
        let ours = Set(directory.openFileDescriptors().compactMap { $0.split(separator: "/").last.map(String.init) })
        #expect(ours.isSuperset(of: ["data.mdb", "lock.mdb"]))
        let listing = try Self.descriptorsOfAChild()
        #expect(listing.contains("/proc/"), "ls lists at least the directory it reads:\n\(listing)")
        #expect(!listing.contains(directory.path), "the child's descriptors:\n\(listing)")
    }

    @Test func everyDescriptorOfTheStoreIsMarkedWhicheverWayLiblmdbOpenedIt() throws {
        // liblmdb 0.9.24 and 0.9.36 open lock.mdb close-on-exec and only
        // data.mdb without; another version may differ. Clear the flag on
        // every descriptor of the store, as such a version would leave
        // them, and mark them again.
        let store = try Store()
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name -> Int32? in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
            return target?.hasPrefix(store.directory.path + "/") == true ? Int32(name) : nil
        }
        #expect(descriptors.count >= 3, "data.mdb twice (liblmdb's and the map lock's) and lock.mdb")
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, 0) }
        #expect(try Self.descriptorsOfAChild().contains(store.directory.path + "/lock.mdb"))
        try CloseOnExec.apply(to: store.env.handle.pointer, directory: store.directory.path)
        for descriptor in descriptors { #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0) }
        let listing = try Self.descriptorsOfAChild()
        #expect(!listing.contains(store.directory.path), "the child's descriptors:\n\(listing)")
    }
}
