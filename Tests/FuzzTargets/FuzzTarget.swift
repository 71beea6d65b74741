import ShareClip
/// A fuzzing entry point: arbitrary bytes in, the code under test's answer out.
///
/// Each target feeds the bytes to public ShareLog entry points and checks the
/// contracts their documentation states. The same `run` serves three callers:
/// libFuzzer (`sharelog-fuzz`, built with `-sanitize=fuzzer,address`), the
/// regression corpus replayed by `FuzzCorpusTests`, and `sharelog-fuzz
/// TARGET --replay FILE…` in an ordinary build.
///
/// Contract of `run`: it never traps for any input; a trap is a bug in
/// ShareLog. A broken documented contract (for example an event that decodes
/// but does not re-encode to the same bytes) is thrown as a `FuzzViolation`;
/// the fuzz driver turns that into a crash so libFuzzer keeps the input.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `EventCodec.decode`, and byte-for-byte re-encoding of what decodes.
    case codec
    /// `VCardValidator.validate` and `VCardPreview(parsing:)`, which must agree.
    case vcard
    /// `AppClipLinkParser.parse` and `AppClipDomain(_:)`, with builder round trips.
    case link
    /// The sync frame decoder (`FrameDecoder`, `FrameBuffer`) and `Message(_:)`,
    /// against readers written from docs/SYNC.md, in one read or several.
    case frame
    /// The established session's rules alone: `SessionMachine` fed the
    /// peer's messages and its driver's answers, no store, no channel,
    /// checked against a reference written from docs/SYNC.md.
    case session
    /// The handshake and session as they run: `HandshakeExchange` and
    /// `SessionRunner` over an in-memory channel against a real store, fed
    /// a scripted peer's bytes.
    case exchange
    /// The HTTP gateway's handler (`Gateway.respond(to:)`) over a real store,
    /// fed requests made of the input: statuses, caching and security fields,
    /// escaping of a hostile card, `HEAD` as `GET`.
    case gateway

    /// Runs one input through the target.
    ///
    /// - Returns: whether the code under test accepted the input, with a summary
    ///   or the error's description (never empty).
    /// - Throws: `FuzzViolation` when a documented contract does not hold.
    public func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        switch self {
        case .codec: try CodecFuzzTarget.run(input)
        case .vcard: try VCardFuzzTarget.run(input)
        case .link: try LinkFuzzTarget.run(input)
        case .frame: try FrameFuzzTarget.run(input)
        case .session: try SessionFuzzTarget.run(input)
        case .exchange: try ExchangeFuzzTarget.run(input)
        case .gateway: try GatewayFuzzTarget.run(input)
        }
    }

    /// Runs one input held in an array; see `run(_:)` for the contract.
    public func run(_ input: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        let result = input.withUnsafeBytes { raw in Result { () throws(FuzzViolation) in try run(raw) } }
        return try result.get()
    }

    /// Valid inputs that start the fuzzer off in the interesting part of the
    /// input space; `Scripts/fuzz` writes them to the seed corpus.
    public var seeds: [[UInt8]] {
        switch self {
        case .codec: FuzzSeeds.events
        case .vcard: FuzzSeeds.vCards
        case .link: FuzzSeeds.links
        case .frame: FuzzSeeds.frameStreams
        case .session: FuzzSeeds.sessions
        case .exchange: FuzzSeeds.exchanges
        case .gateway: FuzzSeeds.gatewayRequests
        }
    }
}
