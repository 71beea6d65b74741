import Foundation
import ShareClip
import ShareLog
import TestSupport

/// Fuzzes the vCard entry points. `VCardValidator.validate` and
/// `VCardPreview(parsing:)` must accept exactly the same inputs with the same
/// error; contiguous and non-contiguous input must give the same answer; and
/// an accepted preview keeps `VCardPreview`'s documented promises (trimmed,
/// non-empty fields; a non-empty photo whose bytes are exactly what
/// `ReferencePhotoReader` decodes from one of the card's content lines; the
/// `missingName` warning exactly when there is no name; JSON always encodes).
enum VCardFuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        let validation = Result { () throws(VCardError) in try VCardValidator.validate(input) }
        let parsed = Result { () throws(VCardError) in try VCardPreview(parsing: input) }
        // A lazy map has no contiguous storage, so this takes the copying path.
        let copied = Result { () throws(VCardError) in try VCardPreview(parsing: input.lazy.map { $0 }) }
        try FuzzViolation.check(parsed == copied, "contiguous and non-contiguous input give different previews")
        switch (validation, parsed) {
        case (.failure(let refused), .failure(let error)):
            try FuzzViolation.check(refused == error, "the validator says \(refused) but the preview says \(error)")
            try FuzzViolation.check(!error.description.isEmpty, "a VCardError has no description")
            return .rejected(error.description)
        case (.success, .success(let preview)):
            try check(preview, of: Array(input))
            return .accepted("name \(preview.name ?? "-"), \(preview.warnings.count) warnings")
        case (.success, .failure(let error)):
            throw FuzzViolation("the validator accepts a card the preview refuses: \(error)")
        case (.failure(let error), .success):
            throw FuzzViolation("the preview accepts a card the validator refuses: \(error)")
        }
    }

    private static func check(_ preview: VCardPreview, of card: [UInt8]) throws(FuzzViolation) {
        for (field, value) in [("name", preview.name), ("title", preview.title), ("organization", preview.organization)] {
            guard let value else { continue }
            try FuzzViolation.check(!value.isEmpty, "the preview's \(field) is empty rather than nil")
            try FuzzViolation.check(
                value.trimmingCharacters(in: .whitespacesAndNewlines) == value,
                "the preview's \(field) \(value.debugDescription) is not trimmed")
        }
        // `byteCount` is `bytes.count` by construction, so only the bytes are checked.
        if let photo = preview.photo {
            try FuzzViolation.check(!photo.bytes.isEmpty, "a parsed photo has no bytes")
            try FuzzViolation.check(
                ReferencePhotoReader.holds(Array(photo.bytes), in: card),
                "the photo's \(photo.bytes.count) bytes are not the base64 at the end of any content line")
        }
        try FuzzViolation.check(
            (preview.name == nil) == preview.warnings.contains(.missingName),
            "missingName is reported \(preview.warnings.contains(.missingName)) with name \(preview.name ?? "nil")")
        do {
            let json = try JSONEncoder().encode(preview)
            let decoded = try JSONDecoder().decode(VCardPreview.self, from: json)
            try FuzzViolation.check(
                decoded.name == preview.name && decoded.warnings == preview.warnings
                    && decoded.photo?.byteCount == preview.photo?.byteCount,
                "the preview's JSON does not read back to the same fields")
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            throw FuzzViolation("the preview does not round-trip through JSON: \(error)")
        }
    }
}
