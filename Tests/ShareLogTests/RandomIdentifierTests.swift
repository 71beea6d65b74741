import ShareLog
import Testing
import TestTraits

/// New record names and replica ids are random version-4 UUIDs (RFC 9562),
/// whatever source their bits come from, and they sort as their text does.
@Suite(.hangDeadline) struct RandomIdentifierTests {
    /// In the 36-character form, the version is the character at offset 14
    /// and the variant's top bits (10) make the character at offset 19 one
    /// of 8, 9, a or b.
    @Test func newIdentifiersAreVersion4WithTheRFCVariant() {
        let texts = (0..<2000).map { _ in RecordName.random().description } + (0..<100).map { _ in ReplicaID.random().description }
        for text in texts {
            let characters = Array(text)
            #expect(characters.count == 36)
            #expect(characters[14] == "4", "version of \(text)")
            #expect("89ab".contains(characters[19]), "variant of \(text)")
        }
        #expect(Set(texts).count == texts.count)
    }

    /// 122 random bits: across 2,000 names every one of them is seen set and
    /// seen clear, so none is stuck (the chance that a fair bit is the same
    /// in all 2,000 is 2^-1999).
    @Test func everyRandomBitVaries() {
        let names = (0..<2000).map { _ in Array(RecordName.random().description.filter { $0 != "-" }) }
        for nibble in 0..<32 where nibble != 12 {
            let values = Set(names.map { $0[nibble] })
            // The variant nibble keeps two random bits: four values at most.
            #expect(values.count == (nibble == 16 ? 4 : 16), "nibble \(nibble) took \(values.sorted())")
        }
    }

    @Test func identifiersSortAsTheirLowercaseText() {
        let names = (0..<500).map { _ in RecordName.random() }
        #expect(names.sorted().map(\.description) == names.map(\.description).sorted())
    }
}
