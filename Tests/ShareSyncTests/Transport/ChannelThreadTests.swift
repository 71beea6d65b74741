import Foundation
import Glibc
import SharePrimitives
import ShareSync
import Testing
import TestTraits

/// A channel belongs to one thread: one it is handed to must adopt it
/// before using it, and a debug build stops a process whose thread uses a
/// channel it did not adopt (`OwningThread`). Each case runs in a child
/// process (an exit test), since the check stops the process it fails in.
@Suite(.hangDeadline) struct ChannelThreadTests {
    #if DEBUG
        @Test func aThreadThatUsesAChannelItDidNotAdoptStopsADebugBuild() async {
            let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                ChannelThreadTests.closeOnAnotherThread(adopting: false)
            }
            let said = String(decoding: exit?.standardErrorContent ?? [], as: UTF8.self)
            #expect(said.contains("descriptors") && said.contains("is used by a thread that does not own it"), "\(said)")
        }
    #endif

    @Test func aThreadThatAdoptsAChannelHandedToItMayUseIt() async {
        await #expect(processExitsWith: .success) {
            ChannelThreadTests.closeOnAnotherThread(adopting: true)
        }
    }

    /// Makes a channel over a pipe on this thread and hands it to a new
    /// thread, which closes it, after adopting it or not; returns once the
    /// thread is done.
    static func closeOnAnotherThread(adopting: Bool) {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe: \(errno)")
        let handoff = Handoff(StdioChannel(input: ends[0], output: ends[1]))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let channel = handoff.take()
            if adopting { channel.adoptOnCurrentThread() }
            channel.close()
            done.signal()
        }
        done.wait()
    }
}
