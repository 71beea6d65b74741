import ShareLog

extension GatewayClient {
    /// Fetches share `name` from `url` and applies its events to `store`,
    /// exactly as a sync clip fetch applies a `records` answer: without a
    /// cursor (a clip keeps no place in anyone's log), skipping events the
    /// store already holds, checked as local writes are. Afterwards
    /// `store.fetch(name)` answers for the share as the gateway did, or
    /// later by the store's clock (`.unknown` applies nothing).
    ///
    /// - Throws: `GatewayClientError` when there is no answer (nothing is
    ///   written then); `ShareLogError` when the store refuses the events
    ///   (nothing of them is written).
    @discardableResult
    public func fetch(_ name: RecordName, from url: GatewayURL, into store: ShareStore) throws -> GatewayAnswer {
        let answer = try fetch(name, from: url)
        if !answer.events.isEmpty { try store.apply(answer.events) }
        return answer
    }
}
