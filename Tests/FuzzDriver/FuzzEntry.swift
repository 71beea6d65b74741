import Foundation
import FuzzTargets

/// The target this process fuzzes, named by the first argument.
enum FuzzSelection {
    static let target: FuzzTarget? = CommandLine.arguments.dropFirst().first.flatMap(FuzzTarget.init(rawValue:))
}

/// libFuzzer's entry point. `sharelog-fuzz` hands this function to
/// `LLVMFuzzerRunDriver`; defining it under its conventional name also
/// satisfies libFuzzer's own `main`, which the link brings in but never runs.
///
/// A `FuzzViolation` is printed and turned into `abort()`, so libFuzzer saves
/// the input as a crash like any trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = FuzzSelection.target else { return 0 }
    do {
        _ = try target.run(UnsafeRawBufferPointer(start: data, count: size))
    } catch {
        FileHandle.standardError.write(Data("sharelog-fuzz \(target.rawValue): \(error)\n".utf8))
        abort()
    }
    return 0
}
