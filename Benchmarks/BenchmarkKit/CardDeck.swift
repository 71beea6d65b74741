import CBaseline

/// The vCards the workloads store: a pool of distinct sample cards, cycled
/// by index, so that a million shares need no million generated cards and
/// every system stores the same card for the same index.
///
/// The cards are `BenchCard`s. In a mixed deck every tenth card (index % 10
/// == 0) carries a 45,000-byte photo (about 62 KB of vCard) and the rest are
/// about 1 KB: the 9:1 mix. A plain deck has only the small cards.
public struct CardDeck: Sendable {
    /// Photo bytes of the large cards, before base64.
    public static let photoBytes = 45_000

    /// The pool, in index order.
    public let cards: [[UInt8]]
    /// The pool laid end to end, for the C baselines.
    private let bytes: [UInt8]
    private let offsets: [Int]

    /// - Precondition: `pool` is a positive multiple of 10.
    public init(mixed: Bool, pool: Int) {
        precondition(pool > 0 && pool % 10 == 0, "the pool keeps the 9:1 mix when it is a multiple of 10")
        cards = (0..<pool).map { BenchCard.make(index: $0, photoBytes: mixed && $0 % 10 == 0 ? CardDeck.photoBytes : nil) }
        bytes = cards.flatMap { $0 }
        offsets = cards.reduce(into: [0]) { offsets, card in offsets.append(offsets.last! + card.count) }
    }

    /// Card `index` (any non-negative index).
    public func card(_ index: Int) -> [UInt8] { cards[index % cards.count] }

    /// The mean card size in bytes.
    public var meanSize: Double { Double(bytes.count) / Double(cards.count) }

    /// Lends `body` the C view of cards `first ..< first + count`.
    func withCCards<R>(first: Int, count: Int, _ body: (UnsafePointer<cb_cards>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { bytes in
            try offsets.withUnsafeBufferPointer { offsets in
                var view = cb_cards(
                    bytes: bytes.baseAddress, offsets: offsets.baseAddress, distinct: cards.count, first: first, count: count)
                return try body(&view)
            }
        }
    }
}
