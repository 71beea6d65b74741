import Foundation

/// A fresh directory under the system's temporary folder, removed on deinit.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = #function) {
        let name = "sharelog-tests-\(label.prefix(while: { $0.isLetter || $0.isNumber }))-\(UUID().uuidString)"
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func appending(_ component: String) -> String {
        (path as NSString).appendingPathComponent(component)
    }

    /// Paths this process has open under this directory, from /proc/self/fd.
    public func openFileDescriptors() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(path) }
    }
}
