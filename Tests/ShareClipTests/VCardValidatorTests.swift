import Foundation
import ShareClip
import Testing

@Suite struct VCardValidatorTests {
    static let minimal = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Johnny Appleseed\r\nEND:VCARD\r\n"

    @Test(arguments: [
        minimal,
        "BEGIN:VCARD\nVERSION:3.0\nFN:Johnny Appleseed\nEND:VCARD\n",
        "BEGIN:VCARD\r\nEND:VCARD",
        "\u{FEFF}BEGIN:VCARD\r\nFN:Johnny Appleseed\r\nEND:VCARD\r\n",
        "\u{FEFF}\r\n  \n\tBEGIN:VCARD\r\nFN:Johnny Appleseed\r\nEND:VCARD\r\n\r\n  \n",
        "begin:vcard\r\nfn:Johnny Appleseed\r\nend:vcard\r\n",
        "Begin:VCard  \r\nFN:Johnny Appleseed\r\nEnd:vCard\r\n",
        "BEGIN:VCARD\r\nFN:Jöhnny Äppleseed 山田\r\nEND:VCARD\r\n",
        "BEGIN:VCARD\r\nFN:One\r\nEND:VCARD\r\nBEGIN:VCARD\r\nFN:Two\r\nEND:VCARD\r\n",
    ])
    func acceptsVCardsAsContactsAndOtherWritersProduceThem(text: String) throws {
        try VCardValidator.validate(Array(text.utf8))
    }

    @Test func acceptsBytesInAnyCollection() throws {
        let bytes = Array(Self.minimal.utf8)
        try VCardValidator.validate(Data(bytes))
        try VCardValidator.validate(bytes[...])
        try VCardValidator.validate(bytes.lazy.map { $0 })
    }

    @Test func acceptsACardOfExactlyOneMebibyte() throws {
        let card = paddedCard(byteCount: VCardValidator.maximumByteCount)
        #expect(card.count == 1_048_576)
        try VCardValidator.validate(card)
    }

    @Test func refusesACardOverOneMebibyte() {
        let card = paddedCard(byteCount: VCardValidator.maximumByteCount + 1)
        #expect(throws: VCardError.tooLarge(byteCount: 1_048_577)) { try VCardValidator.validate(card) }
        #expect(throws: VCardError.tooLarge(byteCount: 1_048_577)) { try VCardValidator.validate(card.lazy.map { $0 }) }
    }

    @Test(arguments: [
        ("", VCardError.empty),
        ("   \r\n\t\n", .empty),
        ("\u{FEFF}", .empty),
        ("\u{FEFF}  \r\n", .empty),
        ("hello", .missingBegin),
        ("<!DOCTYPE html><html><body>Not found</body></html>", .missingBegin),
        ("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", .missingBegin),
        ("BEGIN:VCARDX\r\nEND:VCARD\r\n", .missingBegin),
        ("BEGIN:VCARD FN:x END:VCARD", .missingBegin),
        ("FN:Johnny\r\nBEGIN:VCARD\r\nEND:VCARD\r\n", .missingBegin),
        ("\u{FEFF}\u{FEFF}BEGIN:VCARD\r\nEND:VCARD\r\n", .missingBegin),
        ("BEGIN:VCARD", .missingEnd),
        ("BEGIN:VCARD\r\n", .missingEnd),
        ("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Johnny Appleseed\r\n", .missingEnd),
        ("BEGIN:VCARD\r\nFN:Johnny\r\nEND:VCARD\r\nNOTE:trailing\r\n", .missingEnd),
        ("BEGIN:VCARD\r\nFN:Johnny\r\nEND:VCARDS\r\n", .missingEnd),
        ("BEGIN:VCARD\r\nFN:Johnny END:VCARD\r\n", .missingEnd),
        ("BEGIN:VCARD\rFN:Johnny\rEND:VCARD\r", .missingEnd),
    ])
    func refusesTextThatIsNotAVCard(text: String, error: VCardError) {
        #expect(throws: error) { try VCardValidator.validate(Array(text.utf8)) }
    }

    @Test(arguments: [
        ([0xC3, 0x28], 0),
        ([0xFF], 0),
        ([0xC0, 0x80], 0),
        ([0xE0, 0x80, 0x80], 0),
        ([0xED, 0xA0, 0x80], 0),
        ([0xF4, 0x90, 0x80, 0x80], 0),
        ([0xE2, 0x82], 0),
        ([0x41, 0x80], 1),
        ([0x41, 0x42, 0xC3, 0xA9, 0xC3], 4),
    ] as [([UInt8], Int)])
    func refusesBytesThatAreNotUTF8AndSaysWhere(bad: [UInt8], offsetInBad: Int) {
        let prefix = Array("BEGIN:VCARD\r\nFN:".utf8)
        let card = prefix + bad + Array("\r\nEND:VCARD\r\n".utf8)
        #expect(throws: VCardError.notUTF8(byteOffset: prefix.count + offsetInBad)) { try VCardValidator.validate(card) }
    }

    @Test(arguments: [
        VCardError.tooLarge(byteCount: 2_000_000), .notUTF8(byteOffset: 17), .empty, .missingBegin, .missingEnd,
    ])
    func messagesSayWhatIsWrongAndWhatToDo(error: VCardError) {
        #expect(error.description.contains("vCard"))
        #expect(error.description.contains("xport"), "\(error.description)")
    }

    @Test func tooLargeMessageGivesTheSizeAndTheLimit() {
        let message = VCardError.tooLarge(byteCount: 2_000_000).description
        #expect(message.contains("2000000") && message.contains("1048576"))
    }

    /// A valid card of exactly `byteCount` bytes, padded with a NOTE.
    private func paddedCard(byteCount: Int) -> [UInt8] {
        let head = Array("BEGIN:VCARD\r\nNOTE:".utf8)
        let tail = Array("\r\nEND:VCARD\r\n".utf8)
        return head + [UInt8](repeating: UInt8(ascii: "x"), count: byteCount - head.count - tail.count) + tail
    }
}
