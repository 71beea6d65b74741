import Glibc

/// What docs/FORMAT.md says `meta` `data-file` holds for a store at
/// `path`, worked out from `stat` here, apart from ShareLog: the data
/// file's inode, the directory's inode and its ctime (seconds, then
/// nanoseconds), big-endian, as lowercase hex (56 digits).
public enum StoreHome {
    public static func hex(of path: String) -> String? {
        var file = stat(), directory = stat()
        guard stat(path + "/data.mdb", &file) == 0, stat(path, &directory) == 0 else { return nil }
        let fields: [(UInt64, Int)] = [
            (UInt64(file.st_ino), 16), (UInt64(directory.st_ino), 16),
            (UInt64(bitPattern: Int64(directory.st_ctim.tv_sec)), 16), (UInt64(directory.st_ctim.tv_nsec), 8),
        ]
        return fields.map { value, digits in
            let text = String(value, radix: 16)
            return String(repeating: "0", count: digits - text.count) + text
        }.joined()
    }
}
