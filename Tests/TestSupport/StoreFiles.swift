import Foundation

/// What a store directory holds, to show that something wrote nothing to
/// it: every file's name, and the bytes of each but `lock.mdb`.
///
/// `lock.mdb` is LMDB's reader table, not the store's contents: every
/// process that reads the store, a read-only one included, makes it when it
/// is missing and takes a slot in it, and it holds pids and transaction
/// ids, never records (docs/LMDB.md). Its bytes are not read: reading it in
/// a process that has the store open drops that process's locks on it.
public struct StoreFiles: Equatable, CustomStringConvertible {
    public static let lockFile = "lock.mdb"

    /// Each file's bytes by name; `lock.mdb`'s are left empty.
    public let files: [String: Data]

    public init(of directory: String) throws {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(name)
            files[name] = name == Self.lockFile ? Data() : try Data(contentsOf: url)
        }
        self.files = files
    }

    private init(files: [String: Data]) { self.files = files }

    /// The file names, sorted.
    public var names: [String] { files.keys.sorted() }

    /// These files and `lock.mdb`: what a directory holds once a reader
    /// has opened it, if nothing wrote to it.
    public var withLockFile: StoreFiles { StoreFiles(files: files.merging([Self.lockFile: Data()]) { old, _ in old }) }

    public var description: String { names.map { "\($0) (\(files[$0]?.count ?? 0) bytes)" }.joined(separator: ", ") }

    /// The names of the files in `directory` that contain `marker`, sorted
    /// (`lock.mdb` is not read, and holds no record).
    public static func holding(_ marker: String, in directory: String) throws -> [String] {
        try StoreFiles(of: directory).files.filter { $0.value.range(of: Data(marker.utf8)) != nil }.keys.sorted()
    }
}
