import Foundation
import Testing
import TestSupport

/// The README's embedding example, as a newcomer would use it: copied
/// verbatim into a new SwiftPM package that depends on this repository by
/// path, built from scratch with `swift build`, and run. What it prints is
/// compared with what the README says it prints, written down here by hand.
///
/// The nested build compiles ShareLog, ShareSync and ShareClip again in the
/// new package's own `.build` (about 30 s here, longer on a loaded
/// machine); it reuses nothing of the outer build. It runs with
/// one job, so that the tests running beside it keep a core, and with its
/// own HOME and TMPDIR inside the temporary directory, so that SwiftPM's
/// caches start empty and nothing is left behind. SwiftPM runs
/// `git status` in a path dependency to describe it to its manifest;
/// `GIT_OPTIONAL_LOCKS=0` keeps that from rewriting this repository's
/// `.git/index` while an engineer commits.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct ReadmeEmbeddingTests {
    /// The repository root: this file is Tests/ShareSyncTests/Embedding/….
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The marker on the line before the example's fence in README.md.
    static let marker = "<!-- embedding-example -->"

    /// What the example prints, record names shown as `<id>`: the clock is
    /// fixed at 2027-01-15T08:00:00Z, Jane's share lives 7 days, John's an
    /// hour and is swept two hours on; the follower pulls both creations
    /// and John's TTL end.
    static let expected = """
        created https://cards.example.com/appclip?id=<id>, expires 2027-01-22T08:00:00.000Z
        fetched: Jane Appleseed, Boss at Acme
        john: expired at 2027-01-15T09:00:00.000Z (ttl)
        swept 1
        pulled 3 events
        clip fetched 1 share, live until 2027-01-22T08:00:00.000Z
        server stopped

        """

    /// The lines between the fence after the marker and the next fence.
    static func example(in readme: String) throws -> String {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let markers = lines.indices.filter { lines[$0] == marker }
        try #require(markers.count == 1, "README.md must hold \(marker) exactly once, found \(markers.count)")
        let open = markers[0] + 1
        try #require(open < lines.count && lines[open] == "```swift", "the line after \(marker) must open a ```swift fence")
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"), "the example's fence is never closed")
        return lines[(open + 1)..<close].joined(separator: "\n") + "\n"
    }

    /// The `swift` on PATH, as a newcomer would run it.
    static func swiftExecutable() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let found = path.split(separator: ":").map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "no swift on PATH (\(path))")
    }

    static func manifest(dependingOn root: URL) -> String {
        // SwiftPM names a path dependency after its folder: `main` for /work/main.
        let package = root.lastPathComponent
        return """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "EmbeddingExample",
                dependencies: [.package(path: "\(root.path)")],
                targets: [
                    .executableTarget(
                        name: "EmbeddingExample",
                        dependencies: [
                            .product(name: "ShareLog", package: "\(package)"),
                            .product(name: "ShareSync", package: "\(package)"),
                            .product(name: "ShareClip", package: "\(package)"),
                        ]),
                ]
            )

            """
    }

    @Test func theReadmeExampleBuildsInANewPackageAndPrintsWhatTheReadmeSays() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let code = try Self.example(in: readme)
        let directory = TemporaryDirectory("embedding")
        let package = directory.appending("EmbeddingExample")
        let sources = (package as NSString).appendingPathComponent("Sources/EmbeddingExample")
        let home = directory.appending("home"), temporary = directory.appending("tmp")
        for folder in [sources, home, temporary] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Self.manifest(dependingOn: Self.root)
            .write(toFile: (package as NSString).appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try code.write(toFile: (sources as NSString).appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": home, "TMPDIR": temporary, "GIT_OPTIONAL_LOCKS": "0",
        ]
        let rootFiles = ["Package.resolved", ".swiftpm"].map { Self.root.appendingPathComponent($0).path }
        let rootFilesBefore = rootFiles.filter { FileManager.default.fileExists(atPath: $0) }

        let started = ContinuousClock.now
        let build = try Subprocess.run(
            Self.swiftExecutable(), ["build", "--package-path", package, "--jobs", "1"], environment: environment, timeout: .seconds(12 * 60))
        let buildTime = ContinuousClock.now - started
        let buildLog = String(decoding: build.output + build.error, as: UTF8.self)
        try #require(build.status == 0 && !build.signaled, "swift build failed (\(build.status)):\n\(buildLog)")
        print("ReadmeEmbeddingTests: the nested build took \(buildTime.components.seconds) s")
        #expect(!buildLog.contains("warning:"), "the example must build without warnings:\n\(buildLog)")
        // The dependency was built here, in the new package's .build, and
        // SwiftPM left no Package.resolved or .swiftpm in the repository.
        #expect(FileManager.default.fileExists(atPath: (package as NSString).appendingPathComponent(".build/debug/ShareSync.build")))
        #expect(rootFiles.filter { FileManager.default.fileExists(atPath: $0) } == rootFilesBefore)

        let run = try Subprocess.run(
            (package as NSString).appendingPathComponent(".build/debug/EmbeddingExample"), [], environment: ["TMPDIR": temporary],
            timeout: .seconds(120))
        let printed = String(decoding: run.output, as: UTF8.self), complaints = String(decoding: run.error, as: UTF8.self)
        #expect(run.status == 0 && !run.signaled, "the example failed (\(run.status)): \(complaints)")
        #expect(complaints == "")
        let uuid = #/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/#
        #expect(printed.replacing(uuid, with: "<id>") == Self.expected)
        // Its folder of stores went with it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("sharelog-") } == [])
    }
}
