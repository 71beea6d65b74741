import Foundation
import ShareLog
import SharePrimitives

/// The main job of `Scripts/demo`: ShareLog embedded in a main app, its
/// server, a clip, a follower and the full app, each its own process
/// (`DemoScenario`), in a demo folder that it prints.
struct DemoCommand: Command {
    static let name = "demo"
    static let synopsis = "demo [--dir ./sharelog-demo] [--shares 1000] [--photo-every 10]"
    static let summary =
        "Run the multi-process demo in a fresh demo folder: share, serve, serve the links over HTTP, open a link as the clip, follow, expire, hand off; print a summary."

    static let options: [OptionSpec] = [
        .value("dir", "./sharelog-demo", "the demo folder, made anew (refused if it holds anything but an earlier demo)"),
        .value("shares", "1000", "how many shares the main app makes"),
        .value("photo-every", "10", "every Nth card carries a photo"),
    ]

    static func run(_ arguments: inout Arguments, _ context: Context) throws -> Int32 {
        let directory = try arguments.option("dir") ?? "./sharelog-demo"
        let count = try arguments.integer("shares", in: 1...100_000) ?? 1000
        let photoEvery = try arguments.integer("photo-every", in: 1...100_000) ?? 10
        try arguments.finish()
        let folder = try DemoFolder(directory)
        let settings = DemoScenario.Settings(shares: count, photoEvery: photoEvery, now: context.clock.now(), domain: context.domain)
        let json = context.json
        let scenario = try DemoScenario(settings: settings, folder: folder) { line in
            // Progress goes with the text; beside JSON, to standard error.
            if json { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { context.print(line) }
        }
        if !json { context.print("demo folder: \(folder.path)") }
        let report = scenario.run()
        if json {
            try context.printJSON(report)
        } else {
            printSummary(report, context)
        }
        return report.succeeded ? ExitCode.success : ExitCode.failure
    }

    private static func printSummary(_ report: DemoReport, _ context: Context) {
        context.print("")
        context.print("Summary")
        for step in report.steps {
            let title = step.title.padding(toLength: 48, withPad: " ", startingAt: 0)
            let number = step.number < 10 ? " \(step.number)" : "\(step.number)"
            context.print("\(number)  \(title)" + String(format: "%9.0f ms", step.milliseconds))
            context.print("    \(step.outcome)")
        }
        if let failure = report.failure { context.print("FAILED: \(failure)") }
        if let line = report.metricsLine { context.print("\nThe server's metrics, after its maintenance: \(line)") }
        if let page = report.fallbackPage { context.print("\nThe fallback page a browser shows for the clip's share (while the demo ran): \(page)") }
        context.print("")
        let places = report.stores
        for (name, path) in [
            ("main", places.main), ("follower", places.follower), ("clip", places.clip), ("app", places.app),
            ("vCard", places.contact), ("logs", places.logs),
        ] {
            context.print("\(name.padding(toLength: 10, withPad: " ", startingAt: 0))\(path)")
        }
    }
}
