import Foundation
import SampleCards
import ShareLog
@testable import ShareSync

/// Fuzzes the handshake and the session as they run (the `exchange`
/// target): `HandshakeExchange` and `SessionRunner`, with the machines in
/// them (`ServerHandshake`, `ClientHandshake`, `SessionMachine`,
/// `EventReceiver`, `EventSender`, `ClipFetcher`, `ClipServer`), over an
/// in-memory channel (`ScriptedChannel`), against a real `ShareStore` made
/// for each input in a temporary directory (in /dev/shm when there is
/// one). The input is a `SessionScript`: which side runs, and what its
/// scripted peer sends. (`SessionFuzzTarget` drives `SessionMachine`
/// alone.)
///
/// Contracts: no trap; the session ends well, or with a `SyncFailure` the
/// peer's bytes explain (never a transport failure or silence: the channel
/// has neither), and the peer is told with an `error` of the code
/// docs/SYNC.md gives for it; after a failure caused by a frame, the store
/// (its log, its counts, its identity, its cursors) is exactly as it was
/// before that frame arrived (checked with aligned reads); the cursor on
/// the peer is only ever a position the peer named (a batch's `through`
/// the session acknowledged, a `caughtUp` or a `snapshotEnd`) or where it
/// was; an acknowledged batch's events are all in the store; and a clip
/// that ends well knows each name it asked for as found or unknown. The
/// seeds are well-formed exchanges, which `FuzzCorpusTests` checks end
/// well with the events applied.
enum ExchangeFuzzTarget {
    /// What a failure says about the store and the store's peers.
    struct StoreState: Equatable {
        var events = 0
        var lastPosition: UInt64 = 0
        var live = 0
        var expired = 0
        var pendingRedactions = 0
        var replica: ReplicaID
        var epoch: Epoch
        var cursors: [PeerCursor] = []

        init(_ store: ShareStore) throws(FuzzViolation) {
            do {
                let stats = try store.stats()
                events = stats.events
                lastPosition = stats.lastPosition
                live = stats.live
                expired = stats.expired
                pendingRedactions = stats.pendingRedactions
                cursors = try store.peers()
            } catch {
                throw FuzzViolation("the store cannot be read after the session: \(error)")
            }
            replica = store.replicaID
            epoch = store.epoch
        }
    }

    /// The start of each input's store directory; `run` adds a UUID, so that
    /// inputs replayed in parallel (FuzzCorpusTests) never share one. An
    /// input that crashes the process leaves its directory behind.
    static let scratch: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return (base as NSString).appendingPathComponent("sharelog-fuzz-exchange-\(ProcessInfo.processInfo.processIdentifier)")
    }()

    static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> FuzzOutcome {
        let script = SessionScript(Array(input))
        let directory = scratch + "-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store: ShareStore
        do {
            var options = ShareStore.Options()
            options.clock = FixedClock(ScriptedPeer.start)
            options.environment.durability = .noSync
            store = try ShareStore.open(at: directory, creatingIfMissing: true, options: options)
            if script.shares > 0 { _ = try store.create(vCards: (0..<script.shares).map { SampleCard.make(index: $0) }) }
        } catch {
            throw FuzzViolation("cannot make the session's store in \(directory): \(error)")
        }
        return try run(script, store: store)
    }

    private static func run(_ script: SessionScript, store: ShareStore) throws(FuzzViolation) -> FuzzOutcome {
        let peer = ScriptedPeer(script: script, store: store)
        let channel = ScriptedChannel()
        let before = try StoreState(store)
        var checkpoint: Result<StoreState, FuzzViolation> = .success(before)
        channel.nextRead = { [unowned channel] in
            checkpoint = Result { () throws(FuzzViolation) in try StoreState(store) }
            return peer.read(written: channel.written)
        }
        let result = Result { () throws(SyncFailure) in try SessionDriver(script: script, store: store, channel: channel).run() }
        channel.nextRead = { nil }
        try FuzzViolation.check(channel.badOutput == nil, "the session wrote bytes that are not a message: \(channel.badOutput ?? "")")
        let after = try StoreState(store)
        try checkCursor(before: before, after: after, store: store, channel: channel)
        switch result {
        case .success(let summary):
            if script.side == .clipClient {
                try FuzzViolation.check(
                    Set(summary.found).isDisjoint(with: summary.unknown) && Set(summary.found + summary.unknown) == Set(SessionDriver.clipNames),
                    "a clip ended well knowing \(summary.found) as found and \(summary.unknown) as unknown, of \(SessionDriver.clipNames)")
            }
            return .accepted(
                "\(script.side): received \(summary.eventsReceived) (\(summary.eventsApplied) new), sent \(summary.eventsSent), "
                    + "found \(summary.found.count), unknown \(summary.unknown.count), snapshots \(summary.snapshots), "
                    + "log at \(after.lastPosition), cursor \(after.cursors.map { "\($0.position)" }.joined(separator: ","))")
        case .failure(let failure):
            try FuzzViolation.check(!failure.description.isEmpty, "a SyncFailure has no description")
            try checkTold(failure, channel.written.last)
            if script.aligned, causedByAFrame(failure) {
                let state = try checkpoint.get()
                try FuzzViolation.check(
                    after == state, "the frame that failed the session (\(failure)) changed the store: \(state) before it, \(after) after")
            }
            return .rejected(failure.description)
        }
    }

    /// The peer is told why, with the code docs/SYNC.md ("Errors") gives.
    private static func checkTold(_ failure: SyncFailure, _ last: Message?) throws(FuzzViolation) {
        let code: SyncErrorCode?
        switch failure {
        case .transport, .peerSilent, .storeMadeElsewhere:
            throw FuzzViolation("an in-memory session failed with \(failure), which nothing in it can cause")
        case .peerClosed, .handshake(.refused), .session(.peerError):
            code = nil
        case .frame(.oversized): code = .oversizedFrame
        case .frame(.notAllowed): code = .unexpectedMessage
        case .frame, .message: code = .malformedFrame
        case .handshake(.versionMismatch): code = .versionMismatch
        case .handshake(.notAuthenticated): code = .authenticationFailed
        case .handshake(.roleForbidden): code = .roleForbidden
        case .handshake(.unexpected), .session(.unexpected), .session(.cursorMovedBack), .session(.ackBeyondSent), .session(.ackOutOfTurn): code = .unexpectedMessage
        case .session(.snapshotLoop): code = .snapshotFailed
        case .session(.clipIdle): code = .idle
        case .session(.claimsUnmadeEvents), .handshake(.claimsUnmadeEvents): code = .unmadeEventsClaimed
        case .store(.invalidEvent), .store(.ownOriginConflict): code = .invalidEvents
        case .store(let error):
            throw FuzzViolation("the store failed under a scripted peer: \(error)")
        }
        guard let code else { return }
        guard case .error(code, let text)? = last, !text.isEmpty else {
            throw FuzzViolation("the session failed with \(failure) and told the peer \(last.map { "\($0)" } ?? "nothing"), not error \(code)")
        }
    }

    /// Whether the frame that arrived last ended the session.
    private static func causedByAFrame(_ failure: SyncFailure) -> Bool {
        switch failure {
        case .frame, .message, .handshake, .session: true
        case .store(.invalidEvent), .store(.ownOriginConflict): true
        case .store, .transport, .peerSilent, .peerClosed, .storeMadeElsewhere: false
        }
    }

    /// The cursor on the scripted peer is where it was, or a position the
    /// peer named; a batch acknowledged is in the store, every event.
    private static func checkCursor(before: StoreState, after: StoreState, store: ShareStore, channel: ScriptedChannel) throws(FuzzViolation) {
        let acks = channel.written.compactMap { if case .ack(let through) = $0 { through } else { nil } }
        var named = Set(acks)
        for message in channel.delivered {
            switch message {
            case .caughtUp(let position): named.insert(position)
            case .snapshotEnd(let after, _): named.insert(after)
            default: break
            }
        }
        let held = before.cursors.first { $0.peer == ScriptedPeer.replica }?.position
        if let position = after.cursors.first(where: { $0.peer == ScriptedPeer.replica })?.position, position != held {
            try FuzzViolation.check(named.contains(position), "the cursor moved to \(position), which the peer never named (acks \(acks))")
        }
        guard !acks.isEmpty else { return }
        let ids: Set<EventID>
        do { ids = Set(try store.events(after: 0, limit: 100_000).map(\.event.id)) } catch {
            throw FuzzViolation("the store's log cannot be read: \(error)")
        }
        let batches = channel.delivered.compactMap { if case .batch(let through, let events) = $0 { (through, events) } else { nil } }
        for through in Set(acks) {
            let applied = batches.filter { $0.0 == through }.contains { batch in
                batch.1.encoded.allSatisfy { bytes in (try? EventCodec.decode(bytes)).map { ids.contains($0.id) } ?? false }
            }
            try FuzzViolation.check(applied, "the session acknowledged position \(through), but no batch through it is in the store")
        }
    }
}
