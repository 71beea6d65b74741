import Foundation
import Testing
import TestSupport

/// How a test puts an old copy of a store back in the store's place.
enum RestoreMethod: String, CaseIterable, CustomTestStringConvertible {
    /// `cp -r` the copy beside the store, `rm -rf` the store, `mv` the copy
    /// in: the restored data file was made while the old one still existed,
    /// so it has another inode number.
    case copyThenSwap
    /// `rm -rf` the store, then `cp -r` the copy back: on ext4 the new data
    /// file usually gets the inode number the old one just freed.
    case removeThenCopy

    var testDescription: String { rawValue }

    /// Replaces the store at `store` with `copy` (kept), while no process
    /// has either open.
    func restore(_ copy: String, over store: String, scratch: String) throws {
        switch self {
        case .copyThenSwap:
            try Self.copyDirectory(copy, to: scratch)
            try FileManager.default.removeItem(atPath: store)
            try FileManager.default.moveItem(atPath: scratch, toPath: store)
        case .removeThenCopy:
            try FileManager.default.removeItem(atPath: store)
            try Self.copyDirectory(copy, to: store)
        }
    }

    /// `cp -r source destination`.
    static func copyDirectory(_ source: String, to destination: String) throws {
        _ = try CLIResult(Subprocess.run("/bin/cp", ["-r", source, destination], timeout: .seconds(60))).checked("cp -r \(source) \(destination)")
    }

    /// The inode number of the store's data file.
    static func dataFileInode(_ store: String) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: (store as NSString).appendingPathComponent("data.mdb"))
        return try #require(attributes[.systemFileNumber] as? UInt64)
    }
}
