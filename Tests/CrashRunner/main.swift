// sharelog-crash: the crash-injection harness (see docs/RELIABILITY.md).
//
//   sharelog-crash run [--kills N] [--writers W[,W…]] [--seed S] [--json] …
//       the parent: runs writers, kills them, reopens and checks the store
//   sharelog-crash writer --store DIR --slot N --seed S --first N --time MS [--workload shares]
//       one writer child (the parent starts these)
//   sharelog-crash reader --store DIR --map BYTES --target N --batch N --time MS
//       the reader child of CrossProcessGrowthTests (see GrowthReader)
//   sharelog-crash upgrade [--kills N] [--seed S] [--shares N] [--json] …
//       kills `sharelog upgrade` (built beside this executable) on copies of
//       a large format-1 store and checks each copy (see UpgradeCrashRunner)
//   sharelog-crash power [--states N] [--seed S] [--durability full|nometasync|nosync] [--json] …
//       power cuts: runs a writer under the LD_PRELOAD shim and checks every
//       state a power cut could leave (see PowerCutRunner)
//   sharelog-crash powercheck --dir DIR --first N …
//       the power-cut run's checker child
//   sharelog-crash sync [--kills N] [--seed S] [--json] …
//       kills the server, the syncing client or a writer of a pair of main
//       stores that sync, with `sharelog` built beside this executable, and
//       checks the pair after each kill (see SyncCrashRunner)
//
// Exit status: 0 every invariant held, 1 a violation, a hung writer, a run in
// which nothing was acknowledged (it checked nothing) or another failure, 2 usage.
import CrashHarness
import Foundation
import LMDB
import ShareLog

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("sharelog-crash: \(message)\n".utf8))
    exit(status)
}

/// Every workload, by the name `--workload` selects.
let workloads: [String: any CrashWorkload] = [ShareWorkload().name: ShareWorkload(), SyncWorkload().name: SyncWorkload()]

func writer(_ arguments: ArraySlice<String>) throws -> Never {
    var values: [String: String] = [:]
    var remaining = arguments
    while let flag = remaining.popFirst() {
        guard flag.hasPrefix("--"), let value = remaining.popFirst() else { fail("writer: bad option \(flag)", status: 2) }
        values[String(flag.dropFirst(2))] = value
    }
    guard let store = values["store"], let slot = values["slot"].flatMap(Int.init),
          let seed = values["seed"].flatMap(UInt64.init), let first = values["first"].flatMap(Int.init),
          let time = values["time"].flatMap(Int64.init),
          let workload = workloads[values["workload"] ?? "shares"]
    else { fail("writer: needs --store, --slot, --seed, --first and --time", status: 2) }
    var start = CrashWriter.Start(store: store, slot: slot, seed: seed, firstNumber: first, time: time)
    // The power-cut harness's writer: a durability mode, and a fixed number of operations.
    if let name = values["durability"] {
        guard let durability = PowerCutOptions.durabilities[name] else { fail("writer: bad --durability \(name)", status: 2) }
        start.durability = durability
    }
    if let operations = values["operations"].flatMap(Int.init) { start.maxOperations = operations }
    try CrashWriter.run(workload, from: start)
    exit(0)
}

func run(_ arguments: ArraySlice<String>) throws -> Never {
    let options: CrashRunOptions
    do { options = try CrashRunOptions(arguments: Array(arguments)) } catch { fail(error.description, status: 2) }
    guard let workload = workloads[options.workload] else { fail("no workload \(options.workload)", status: 2) }
    let report = try runHarness(workload, options: options)
    print(options.json ? report.json : report.text)
    exit(report.passed ? 0 : 1)
}

/// Runs the parent for one workload, printing progress after each store unless the output is JSON.
func runHarness<Workload: CrashWorkload>(_ workload: Workload, options: CrashRunOptions) throws -> CrashReport {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return try CrashRunner(workload: workload, options: options, executable: executable).run { report in
        guard !options.json else { return }
        // Unbuffered, so progress shows as it happens when output is a pipe.
        FileHandle.standardOutput.write(Data(
            "store \(report.stores): \(report.kills) kills so far, \(report.acknowledged) operations acknowledged\n".utf8))
    }
}

/// The `sharelog` executable built beside this one; exits 1 when it is missing.
func builtSharelog() -> URL {
    let sharelog = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("sharelog")
    guard FileManager.default.isExecutableFile(atPath: sharelog.path) else {
        fail("\(sharelog.path) is missing: build it with 'swift build --product sharelog'", status: 1)
    }
    return sharelog
}

func upgrade(_ arguments: ArraySlice<String>) throws -> Never {
    let options: UpgradeCrashOptions
    do { options = try UpgradeCrashOptions(arguments: Array(arguments)) } catch { fail(error.description, status: 2) }
    let sharelog = builtSharelog()
    let report = try UpgradeCrashRunner(options: options, sharelog: sharelog).run { report in
        guard !options.json else { return }
        FileHandle.standardOutput.write(Data(
            "kill \(report.kills): \(report.before) before, \(report.during) during, \(report.after) after, \(report.exited) exited\n".utf8))
    }
    print(options.json ? report.json : report.text)
    exit(report.passed ? 0 : 1)
}

func sync(_ arguments: ArraySlice<String>) throws -> Never {
    let options: SyncCrashOptions
    do { options = try SyncCrashOptions(arguments: Array(arguments)) } catch { fail(error.description, status: 2) }
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let report = try SyncCrashRunner(options: options, executable: executable, sharelog: builtSharelog()).run { report in
        guard !options.json else { return }
        let victims = report.killsByVictim.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        FileHandle.standardOutput.write(Data("kill \(report.kills): \(victims); \(report.convergingSessions) converging sessions\n".utf8))
    }
    print(options.json ? report.json : report.text)
    exit(report.passed ? 0 : 1)
}

/// `pin STORE`: holds a read snapshot of the store, opened read-only,
/// until killed; says so once it holds it (the disk-full tests' pin).
func pin(_ arguments: ArraySlice<String>) throws -> Never {
    guard let path = arguments.first else { fail("pin: needs a store path", status: 2) }
    var options = Environment.Options()
    options.readOnly = true
    let environment = try Environment.open(at: path, databases: ShareStore.databaseNames, options: options)
    try environment.read { _ in
        FileHandle.standardOutput.write(Data("the pinning reader holds its snapshot\n".utf8))
        while true { pause() }
    }
    fail("pin: the read ended", status: 1)
}

// MARK: power cuts (docs/RELIABILITY.md "Power loss")

/// `power [options]`: the power-cut run's parent; the shim is built beside
/// this executable.
func power(_ arguments: ArraySlice<String>) throws -> Never {
    let options: PowerCutOptions
    do { options = try PowerCutOptions(arguments: Array(arguments)) } catch { fail(error.description, status: 2) }
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let shim = executable.deletingLastPathComponent().appendingPathComponent("libsharelog-powercut.so")
    guard FileManager.default.fileExists(atPath: shim.path) else {
        fail("\(shim.path) is missing: build it with 'swift build --product sharelog-powercut'", status: 1)
    }
    let report = try PowerCutRunner(options: options, executable: executable, shim: shim).run()
    print(options.json ? report.json : report.text)
    exit(report.passed ? 0 : 1)
}

/// `powercheck --dir DIR … --first N`: the power-cut run's checker child.
/// Prints one JSON outcome per state, flushed before the next state.
func powerCheck(_ arguments: ArraySlice<String>) throws -> Never {
    var remaining = Array(arguments)
    guard let at = remaining.firstIndex(of: "--first"), at + 1 < remaining.count, let first = Int(remaining[at + 1]) else {
        fail("powercheck: needs --first", status: 2)
    }
    remaining.removeSubrange(at...at + 1)
    let options: PowerCutOptions
    do { options = try PowerCutOptions(arguments: remaining) } catch { fail(error.description, status: 2) }
    guard let directory = options.directory else { fail("powercheck: needs --dir", status: 2) }
    let space = try PowerCutSpace(PowerCutJournal(contentsOf: directory + "/journal"))
    var checker = PowerCutChecker(space: space, states: PowerCutRunner.states(of: space, options: options), store: directory + "/store")
    let encoder = JSONEncoder()
    try checker.run(from: first) { outcome in
        // One write per line: a checker that dies leaves whole lines.
        FileHandle.standardOutput.write(((try? encoder.encode(outcome)) ?? Data()) + Data("\n".utf8))
    }
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "run": try run(arguments.dropFirst())
    case "writer": try writer(arguments.dropFirst())
    case "reader": exit(GrowthReader.main(Array(arguments.dropFirst())))
    case "pin": try pin(arguments.dropFirst())
    case "upgrade": try upgrade(arguments.dropFirst())
    case "power": try power(arguments.dropFirst())
    case "powercheck": try powerCheck(arguments.dropFirst())
    case "sync": try sync(arguments.dropFirst())
    default:
        fail("usage: sharelog-crash run [options] | writer [options] | upgrade [options] | sync [options] | power [options]\n"
            + "\(CrashRunOptions.usage)\n\(UpgradeCrashOptions.usage)\n\(SyncCrashOptions.usage)\n\(PowerCutOptions.usage)", status: 2)
    }
} catch {
    fail("\(error)", status: 1)
}
