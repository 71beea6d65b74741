import ShareLog

/// One thing that happens to a store in a `ConvergenceScript`.
enum ConvergenceStep: CustomStringConvertible {
    /// Events from other replicas, applied in one transaction.
    case deliver([Event])
    /// The store's clock moves on.
    case advance(Duration)
    /// A sweep at the clock's time, in batches of this many shares.
    case sweep(batchSize: Int)
    /// A compaction, in batches of this many log entries.
    case compact(batchSize: Int)
    /// A revoke at the clock's time of a name picked by `choice` among
    /// those known so far: the script's and the store's own.
    case revoke(choice: Int)
    /// A share this store creates, of `SampleCard` number `card`.
    case create(card: Int, ttl: Duration)

    var description: String {
        switch self {
        case .deliver(let events): "deliver \(events.map(\.id))"
        case .advance(let duration): "advance \(duration)"
        case .sweep(let batchSize): "sweep in batches of \(batchSize)"
        case .compact(let batchSize): "compact in batches of \(batchSize)"
        case .revoke(let choice): "revoke name \(choice)"
        case .create(let card, let ttl): "create card \(card) for \(ttl)"
        }
    }
}
