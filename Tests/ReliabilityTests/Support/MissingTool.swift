/// A program a test needs is not installed.
struct MissingTool: Error, CustomStringConvertible {
    let path: String
    let package: String
    var description: String { "\(path) is missing: install Debian's \(package) (Scripts/test does)" }
}
