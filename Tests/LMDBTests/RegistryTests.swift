import Foundation
import TestSupport
import Testing
@testable import LMDB
import TestTraits
import SharePrimitives

@Suite(.hangDeadline) struct RegistryTests {
    @Test func openingADirectoryTwiceReturnsTheSameEnvironment() throws {
        let dir = TemporaryDirectory()
        let first = try Environment.open(at: dir.path, databases: ["data"])
        let second = try Environment.open(at: dir.path, databases: ["data"])
        #expect(first === second)
    }

    /// The databases are a set: another order, or a name given twice, is
    /// the same configuration, and each name finds its own database.
    @Test func theSameDatabasesInAnotherOrderShareTheEnvironment() throws {
        let dir = TemporaryDirectory()
        let first = try Environment.open(at: dir.path, databases: ["b", "a", "c"])
        #expect(try Environment.open(at: dir.path, databases: ["c", "a", "b", "a"]) === first)
        #expect(try ["a", "b", "c"].map { try first.database($0).name } == ["a", "b", "c"])
        #expect(throws: LMDBError.unknownDatabase) { try first.database("d") }
        try first.write { txn in try txn.put([1], forKey: [1], in: try first.database("b")) }
        #expect(try first.read { txn in try txn.count(in: try first.database("a")) } == 0)
        #expect(try first.read { txn in try txn.count(in: try first.database("b")) } == 1)
    }

    @Test func anotherPathToTheSameDirectoryIsRecognised() throws {
        let dir = TemporaryDirectory()
        let store = dir.appending("store")
        let link = dir.appending("link")
        let first = try Environment.open(at: store, databases: ["data"])
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store)
        #expect(try Environment.open(at: link, databases: ["data"]) === first)
        #expect(try Environment.open(at: store + "/../store", databases: ["data"]) === first)
    }

    @Test func aSecondOpenWithAnotherConfigurationThrows() throws {
        let dir = TemporaryDirectory()
        let first = try Environment.open(at: dir.path, databases: ["data"])
        #expect(throws: LMDBError.alreadyOpen) { try Environment.open(at: dir.path, databases: ["data", "more"]) }
        var options = Environment.Options()
        options.durability = .noSync
        #expect(throws: LMDBError.alreadyOpen) { try Environment.open(at: dir.path, databases: ["data"], options: options) }
        _ = first
    }

    @Test func anEnvironmentReleasedAfterAWriteIsClosedBeforeItsWriterAnswers() throws {
        // A write closure that holds the environment must be gone by the time
        // the write returns: the caller's release is then the last one, and
        // a reopen with other options finds the directory closed.
        let dir = TemporaryDirectory()
        let noSync = {
            var options = Environment.Options()
            options.durability = .noSync
            return options
        }()
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let path = dir.appending("env\(worker)")
            for round in 0..<50 {
                do {
                    let env = try Environment.open(at: path, databases: ["data"], options: round % 2 == 0 ? noSync : .init())
                    let data = try env.database("data")
                    try env.write { txn in _ = env; try txn.put([UInt8(round)], forKey: [0], in: data) }
                } catch {
                    failures.withLock { $0.append("worker \(worker), round \(round): \(error)") }
                    return
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }

    @Test func openAndReleaseFromManyThreadsNeverSharesAClosingHandle() throws {
        let dir = TemporaryDirectory()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<25 {
                let env = try! Environment.open(at: dir.path, databases: ["data"])
                let data = try! env.database("data")
                try! env.write { txn in try txn.put([UInt8(round)], forKey: [UInt8(worker)], in: data) }
                // Only this worker writes its key, so it reads back this round.
                #expect(try! env.read { txn in try txn.value(forKey: [UInt8(worker)], in: data) } == [UInt8(round)])
            }
        }
        #expect(dir.openFileDescriptors().isEmpty)
    }

    @Test func useInAForkedChildIsRefused() throws {
        let dir = TemporaryDirectory()
        // The probe is single-threaded, so forking it is safe.
        let result = try Probe.run("fork-check", dir.path)
        #expect(result.status == 0)
        #expect(result.lastLine == "child=refused parent=ok")
    }
}

@Suite(.hangDeadline, .ownThread) struct RegistryLifecycleTests {
    @Test func anOpenWaitsUntilTheClosingHandleHasClosed() throws {
        let dir = TemporaryDirectory()
        // The environment is released but its handle kept, as one still
        // inside mdb_env_close is.
        let closing = Locked<EnvironmentHandle?>(try Environment.open(at: dir.path, databases: ["data"]).handle)
        let opened = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? Environment.open(at: dir.path, databases: ["data"])
            opened.signal()
        }
        let waited = opened.wait(timeout: .now() + 0.5) == .timedOut
        #expect(waited, "an open went ahead beside a handle that was still open")
        closing.withLock { $0 = nil }
        if waited { #expect(opened.wait(timeout: .now() + 10) == .success) }
        #expect(dir.openFileDescriptors().isEmpty)
    }

    @Test func releasingAnEnvironmentInAForkedChildDoesNotWaitForTheWriter() throws {
        let dir = TemporaryDirectory()
        let result = try Probe.run("fork-release", dir.path)
        #expect(result.status == 0)
        #expect(result.lastLine == "child=exited parent=ok")
    }
}
