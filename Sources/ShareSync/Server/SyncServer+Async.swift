import ShareLog

extension SyncServer {
    /// The async form of `serve(context:ready:)`: listens and serves on a
    /// thread of its own until the calling task is cancelled; then it stops
    /// as `SessionContext.stop()` makes it (no new connection, every peer
    /// told `shuttingDown`, the sessions waited for, the listener closed)
    /// and returns.
    ///
    /// - Parameter ready: called once the listener is up, with its endpoint.
    /// - Throws: what `serve(context:ready:)` throws: a listener that cannot
    ///   start, or TCP without a key.
    public func serve(ready: @escaping @Sendable (Endpoint) -> Void = { _ in }) async throws(SyncFailure) {
        let context = SessionContext()
        try await SessionThread.run("sharelog-serve", context: context) { () throws(SyncFailure) in
            try self.serve(context: context, ready: ready)
        }
    }
}
