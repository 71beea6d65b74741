import Foundation

/// A read transaction held open by another process (`sharelog-crash pin`),
/// as a long report or a slow reader would hold one: LMDB reuses no page
/// freed after its snapshot until it ends.
///
/// Another process, not a thread of this one: a reader in this process
/// would also keep this process's LMDB module from growing the map (growth
/// waits for every read here to end), and the disk-full tests need the
/// growth to happen and meet the full disk.
final class SnapshotPin {
    private var child: ChildProcess?

    /// Starts the read on the store at `path` and returns once it holds its snapshot.
    func hold(_ path: String) throws {
        let child = try ChildProcess(ExternalCommand.built("sharelog-crash"), ["pin", path])
        self.child = child
        _ = try child.nextLine(until: "the pinning reader holds its snapshot")
    }

    /// Ends the read, if one is held.
    func release() {
        child?.stop()
        child = nil
    }
}
