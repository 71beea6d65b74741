// sharelog-fuzz: libFuzzer targets for ShareLog (see docs/RELIABILITY.md).
//
//   sharelog-fuzz TARGET [libFuzzer options and corpus directories]
//       fuzz (only in a build with -sanitize=fuzzer,address; Scripts/fuzz makes one)
//   sharelog-fuzz TARGET --seeds DIR
//       write the target's seed inputs into DIR
//   sharelog-fuzz TARGET --replay FILE...
//       run each file once through the target and print the outcome (any build)
//
// TARGET is codec, vcard, link, frame, session, exchange or gateway.
import CFuzzDriver
import Foundation
import FuzzTargets

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("sharelog-fuzz: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
guard let target = FuzzSelection.target else {
    fail("usage: sharelog-fuzz \(names) [--seeds DIR | --replay FILE... | libFuzzer options]")
}
let rest = Array(arguments.dropFirst())

switch rest.first {
case "--seeds":
    guard rest.count == 2 else { fail("--seeds takes one directory") }
    let directory = URL(fileURLWithPath: rest[1])
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (index, seed) in target.seeds.enumerated() {
        try Data(seed).write(to: directory.appendingPathComponent("seed-\(index)"))
    }
    print("wrote \(target.seeds.count) seeds for \(target.rawValue) to \(directory.path)")

case "--replay":
    var violations = 0
    for path in rest.dropFirst() {
        guard let bytes = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        do {
            print("\(path): \(try target.run(Array(bytes)))")
        } catch {
            violations += 1
            print("\(path): \(error)")
        }
    }
    exit(violations == 0 ? 0 : 1)

default:
    guard sharelog_fuzzer_linked() != 0 else {
        fail("this build has no libFuzzer; run Scripts/fuzz \(target.rawValue), or use --replay FILE...")
    }
    // libFuzzer reads its own options from argv: pass everything but the target name.
    var cArguments = ([CommandLine.arguments[0]] + rest).map { strdup($0) }
    cArguments.append(nil)
    var argc = Int32(rest.count + 1)
    let status = cArguments.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var argv = buffer.baseAddress
        return sharelog_fuzzer_run(&argc, &argv) { data, size in fuzzOneInput(data, size) }
    }
    exit(status)
}
