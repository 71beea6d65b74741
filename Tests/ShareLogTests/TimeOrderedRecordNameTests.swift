import Testing
import TestTraits
@testable import ShareLog

/// New shares are named with UUID version 7 (RFC 9562): the creation time
/// in milliseconds, in the first 48 bits, then the version, the variant
/// and random bits. The expected prefixes are the times written in hex by
/// hand: 1,800,000,000,000 ms is 01a3185c5000, and 2031-03-14T15:09:26.535Z
/// (1,931,267,366,535 ms) is 01c1a8815e87.
@Suite(.hangDeadline) struct TimeOrderedRecordNameTests {
    @Test func aNewShareIsNamedForTheTimeItWasCreated() throws {
        let test = try TestStore()
        let first = try test.store.create(vCard: smallCard(1))
        #expect(first.recordName.description.hasPrefix("01a3185c-5000-7"))
        test.clock.advance(by: .milliseconds(1_931_267_366_535 - 1_800_000_000_000))
        let later = try test.store.create(vCards: [smallCard(2)])[0]
        #expect(later.recordName.description.hasPrefix("01c1a881-5e87-7"))
        for name in [first.recordName, later.recordName] {
            #expect("89ab".contains(Array(name.description)[19]), "variant of \(name)")
        }
        #expect(first.link.hasSuffix("id=\(first.recordName)"))
        #expect(try test.store.share(later.recordName).vCard == smallCard(2))
    }

    @Test func sharesCreatedLaterSortAfterEarlierOnes() throws {
        let test = try TestStore()
        var names: [String] = []
        for index in 0..<40 {
            names.append(try test.store.create(vCard: smallCard(index)).recordName.description)
            test.clock.advance(by: .milliseconds(1))
        }
        #expect(names == names.sorted())
        // Within one millisecond the random bits tell names apart.
        let sameMillisecond = try test.store.create(vCards: (0..<50).map(smallCard)).map(\.recordName)
        #expect(Set(sameMillisecond).count == 50)
    }

    @Test func aTimeOutsideTheFieldIsClamped() {
        #expect(RecordName.timeOrdered(at: Timestamp(milliseconds: -5)).description.hasPrefix("00000000-0000-7"))
        #expect(RecordName.timeOrdered(at: Timestamp(milliseconds: (1 << 48) + 5)).description.hasPrefix("ffffffff-ffff-7"))
    }
}
