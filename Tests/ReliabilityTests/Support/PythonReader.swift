import Foundation

/// Tests/Readers/read_store.py, the reader that knows only docs/FORMAT.md.
enum PythonReader {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Readers/read_store.py").path

    /// Runs the reader on the store at `path`, whatever it answers.
    static func run(_ path: String) throws -> ExternalCommand {
        try ExternalTool.run(ExternalTool.python, [script, path], package: "python3-lmdb")
    }

    /// What the reader decodes from the store at `path`.
    ///
    /// - Throws: `ToolFailed` when the reader refuses the store.
    static func read(_ path: String) throws -> ReaderOutput {
        let result = try run(path)
        guard result.status == 0 else { throw ToolFailed(command: "read_store.py \(path)", result: result) }
        return try JSONDecoder().decode(ReaderOutput.self, from: Data(result.output.utf8))
    }
}
