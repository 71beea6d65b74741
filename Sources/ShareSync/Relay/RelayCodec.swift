import ShareLog

/// Turns events into the relay's messages and back (docs/SCALING.md
/// "Messages").
///
/// A creation whose share is live goes out sealed: the creation without
/// its card in the clear (the stream and every replica may know that a
/// share exists and when it ends), the card under the card key of its
/// `expiresAt`'s hour. Every other event goes out plain: none carries
/// personal data. A sealed card whose hour this replica's key has passed
/// arrives as the creation without its card, which reads as ended
/// (docs/ENGINE.md "A creation without its card"); it is ended, since its
/// hour is over.
struct RelayCodec: Sendable {
    let prefix: String
    let keyring: StreamKeyring

    /// The message carrying `event`; its card only when `cardIsLive`.
    ///
    /// - Throws: `RelayFailure.cardBeyondKeyWindow` for a live card that
    ///   expires beyond the stream key's window.
    func message(for event: Event, cardIsLive: Bool) throws(RelayFailure) -> OutgoingMessage {
        let body: [UInt8]
        if case .shareCreated(let created) = event.kind, let card = created.vCard {
            let redacted = Event(id: event.id, kind: .shareCreated(
                ShareCreated(recordName: created.recordName, vCard: nil, createdAt: created.createdAt, expiresAt: created.expiresAt)))
            let hour = StreamKey.hour(atMilliseconds: created.expiresAt.milliseconds)
            // A card the key has already passed (it expired since
            // `cardIsLive` was read) goes out as the plain redaction.
            if cardIsLive, let cardKey = keyring.cardKey(forHour: hour) {
                body = RelayEnvelope.sealed(redactedEvent: EventCodec.encode(redacted), card: card, hour: hour, cardKey: cardKey)
            } else if cardIsLive, hour >= keyring.hour {
                throw .cardBeyondKeyWindow(hour: hour, keyHour: keyring.hour)
            } else {
                body = RelayEnvelope.plain(EventCodec.encode(redacted))
            }
        } else {
            body = RelayEnvelope.plain(EventCodec.encode(event))
        }
        return OutgoingMessage(subject: RelaySubjects.subject(for: event, prefix: prefix), messageID: RelaySubjects.messageID(for: event), body: body)
    }

    /// The event `message` carries.
    ///
    /// - Throws: `RelayFailure.invalidMessage` for a body that is no relay
    ///   envelope, a seal that does not open, or an event that does not
    ///   decode (`InvalidRelayMessageReason`);
    ///   `RelayFailure.cardBeyondKeyWindow` for a card sealed beyond the
    ///   stream key's window.
    func event(from message: IncomingMessage) throws(RelayFailure) -> Event {
        let refuse = { (reason: InvalidRelayMessageReason) in
            RelayFailure.invalidMessage(sequence: message.streamSequence, subject: message.subject, reason: reason)
        }
        let opened: RelayEnvelope.Opened
        do { opened = try RelayEnvelope.open(message.body) { keyring.cardKey(forHour: $0) } } catch { throw refuse(.envelope(error)) }
        switch opened {
        case .plain(let bytes):
            do { return try EventCodec.decode(bytes) } catch { throw refuse(.event(error)) }
        case .sealed(let redactedBytes, let hour, let card):
            let event: Event
            do { event = try EventCodec.decode(redactedBytes) } catch { throw refuse(.event(error)) }
            guard case .shareCreated(let created) = event.kind, created.vCard == nil else { throw refuse(.sealedWithoutRedactedCreation) }
            guard hour == StreamKey.hour(atMilliseconds: created.expiresAt.milliseconds) else { throw refuse(.sealedForOtherHour(hour)) }
            guard let card else {
                let keyHour = keyring.hour
                if hour >= keyHour { throw .cardBeyondKeyWindow(hour: hour, keyHour: keyHour) }
                return event
            }
            return Event(id: event.id, kind: .shareCreated(
                ShareCreated(recordName: created.recordName, vCard: card, createdAt: created.createdAt, expiresAt: created.expiresAt)))
        }
    }
}
