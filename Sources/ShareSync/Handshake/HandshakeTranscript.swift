import ShareLog

/// What the proofs of a handshake cover (docs/SYNC.md "Handshake"): the
/// hello and the welcome as they go on the wire (the welcome without its
/// proof), so both nonces, both replica ids and epochs, the client's
/// version range and the version chosen, the role and the directions. A
/// proof is HMAC-SHA256, under the proof key (`SyncKey.derived(for:
/// .handshakeProof)`), of a label naming the step that makes it, then the
/// two payloads, each of fixed length; the acceptance's proof adds
/// `heldOfYou`.
///
/// Fresh nonces on both sides make a proof good for one session only; the
/// label keeps one side's proof from passing as the other's; the versions
/// keep anyone on the path from talking the two sides down to an older
/// protocol; the role and directions bind what was asked for, so nobody
/// can turn a pull into a push; `heldOfYou` in the acceptance keeps the
/// claim check's number from being forged.
struct HandshakeTranscript: Equatable {
    let hello: Message.Hello
    let welcome: Message.Welcome

    enum Step: String {
        case clientProof = "sharelog-sync v2 client proof"
        case serverProof = "sharelog-sync v2 server proof"
        case acceptance = "sharelog-sync v2 acceptance"
    }

    /// The proof `step` makes under `proofKey`; `heldOfYou` is the
    /// acceptance's and must be given for it alone.
    func proof(_ step: Step, under proofKey: SyncKey, heldOfYou: UInt64? = nil) -> HandshakeProof {
        precondition((step == .acceptance) == (heldOfYou != nil), "only the acceptance's proof covers heldOfYou")
        var unproven = welcome
        unproven.proof = nil
        var writer = PayloadWriter()
        writer.write(Array(step.rawValue.utf8))
        // Both payloads are of fixed length: 74 and 67 bytes.
        writer.write(Message.hello(hello).frame.payload)
        writer.write(Message.welcome(unproven).frame.payload)
        if let heldOfYou { writer.write(heldOfYou) }
        // HMAC-SHA256 is 32 bytes, the size of a proof.
        return HandshakeProof(bytes: proofKey.hmac(writer.bytes))!
    }

    /// Whether `proof` is the one `step` makes, compared in constant time.
    func verify(_ proof: HandshakeProof, _ step: Step, under proofKey: SyncKey, heldOfYou: UInt64? = nil) -> Bool {
        SyncKey.constantTimeEqual(proof.bytes, self.proof(step, under: proofKey, heldOfYou: heldOfYou).bytes)
    }
}
