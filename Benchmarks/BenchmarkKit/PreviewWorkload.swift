import Foundation
import SampleCards
import ShareClip
import ShareLog

/// Workload 6: the App Clip's first screen. Parses a vCard of about 100 KB
/// with a folded base64 photo into a `VCardPreview`, and, as the floor of
/// that work, decodes the same photo's base64 text alone with Foundation.
/// ShareLog only: the baselines store bytes and parse nothing. Figures: the
/// time per card (the issue asks for it; it must stay well under a
/// millisecond) and its ratio to the floor, which machine noise affects less.
public struct PreviewWorkload: Workload {
    public let name = "preview"

    public init() {}

    public func run(in context: BenchContext, recording measurements: inout Measurements) async throws {
        let card = SampleCard.make(index: 1, photoBytes: 73_000)
        guard let photo = try VCardPreview(parsing: card).photo else {
            throw BenchError.mismatch("the 100 KB sample card has no readable photo")
        }
        let photoText = photo.bytes.base64EncodedString(options: .lineLength76Characters)
        let parses = max(2, context.configuration.fetches / 50)
        for round in 0..<context.configuration.rounds {
            context.progress("preview: round \(round + 1), \(Formatting.grouped(parses)) parses of \(card.count / 1024) KiB")
            var decodedBytes = 0
            let previewClock = Stopwatch()
            for _ in 0..<parses { decodedBytes += try VCardPreview(parsing: card).photo?.byteCount ?? 0 }
            let previewSeconds = previewClock.seconds
            let floorClock = Stopwatch()
            for _ in 0..<parses {
                decodedBytes -= Data(base64Encoded: photoText, options: .ignoreUnknownCharacters)?.count ?? 0
            }
            let floorSeconds = floorClock.seconds
            // Every parse found the whole photo, and the floor decoded as much.
            guard decodedBytes == 0 else { throw BenchError.mismatch("preview and base64 decoded different photos") }
            measurements.record(
                "preview.card100k", title: "vCard preview, ~100 KB card with photo", unit: "µs/card",
                higherIsBetter: false, comparable: false, system: .shareLog, value: previewSeconds / Double(parses) * 1e6)
            measurements.record(
                "preview.overBase64", title: "  preview / base64 decode of its photo alone", unit: "x",
                higherIsBetter: false, comparable: false, system: .shareLog, value: previewSeconds / floorSeconds)
        }
    }
}
