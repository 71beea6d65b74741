import ShareSync

extension GatewayClient {
    /// How a `GatewayClient` fetches: whom it trusts and how long it waits.
    public struct Options: Hashable, Sendable {
        /// A PEM file of certificate authorities to trust for HTTPS, as
        /// `curl --cacert` does (`CURLOPT_CAINFO`), for a gateway whose
        /// certificate a private authority signed (staging, tests); nil:
        /// the system's authorities.
        public var caFile: String?
        /// The most one fetch may take, from resolving the host to the
        /// last byte of the answer (`CURLOPT_TIMEOUT_MS`).
        public var timeout: Duration = .seconds(20)
        /// The most connecting may take, TLS handshake included
        /// (`CURLOPT_CONNECTTIMEOUT_MS`); at most `timeout` counts.
        public var connectTimeout: Duration = .seconds(10)
        /// The largest body taken: a sync frame's limit, which one share's
        /// events always fit in.
        public var maxBodyBytes: Int = SyncProtocol.defaultMaxFrameBytes

        public init(caFile: String? = nil) { self.caFile = caFile }
    }
}
