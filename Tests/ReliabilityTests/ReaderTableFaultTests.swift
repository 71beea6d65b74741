import Dispatch
import Foundation
import LMDB
import SampleCards
import Testing
@testable import ShareLog
import TestTraits

/// When every reader slot is held by a live read, reads fail with the typed
/// `ShareLogError.storage(.readersFull)` (saying what to do), writes go on, and reads work
/// again once a slot frees.
@Suite(.hangDeadline) struct ReaderTableFaultTests {
    @Test func aFullReaderTableIsATypedErrorAndClearsWhenReadersFinish() throws {
        let fixture = try ReliabilityStore { $0.environment.maxReaders = 4 }
        let store = fixture.store
        let name = try store.create(vCard: SampleCard.make(index: 1)).recordName
        let slots = store.environment.info.maxReaders
        #expect(slots == 4)

        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchGroup()
        for _ in 0..<slots {
            finished.enter()
            Thread {
                // Each thread holds one read (one slot) until released.
                _ = try? store.environment.read { _ in
                    holding.signal()
                    _ = release.wait(timeout: .now() + 60)
                }
                finished.leave()
            }.start()
        }
        defer {
            for _ in 0..<slots { release.signal() }
            _ = finished.wait(timeout: .now() + 60)
        }
        for _ in 0..<slots { try #require(holding.wait(timeout: .now() + 30) == .success) }

        let error = #expect(throws: ShareLogError.storage(.readersFull)) { try store.fetch(name) }
        #expect(error?.description.contains("raise Options.maxReaders") == true)
        #expect(throws: ShareLogError.storage(.readersFull)) { try store.verify() }
        // Writers take no reader slot.
        let written = try store.create(vCard: SampleCard.make(index: 2)).recordName

        for _ in 0..<slots { release.signal() }
        try #require(finished.wait(timeout: .now() + 60) == .success)
        #expect(try store.share(name).recordName == name)
        #expect(try store.share(written).recordName == written)
    }
}
