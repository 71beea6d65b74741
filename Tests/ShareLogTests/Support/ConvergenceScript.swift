import Foundation
import ShareLog
import TestSupport

/// A random history of foreign events and what a store does around it, all
/// from one seed so that a failure replays.
///
/// Three replicas write about thirteen record names: creations (some names get
/// two rival ones, some none, a few before 1970), ttl expiries at a
/// creation's `expiresAt` and revocations (either may arrive before its
/// creation), and two events of unknown kinds. They arrive shuffled, in
/// batches of one to five, some twice, and some creations a second time
/// redacted, as a replica that compacted them would relay them. Between
/// batches the clock moves and the store sweeps, compacts, revokes and
/// creates shares of its own. At the end everything is due, swept and
/// compacted, and every event arrives once more.
struct ConvergenceScript {
    let steps: [ConvergenceStep]
    /// The record names the foreign events are about, and one no event mentions.
    let names: [RecordName]

    init(seed: UInt64, start: Timestamp) {
        var random = SeededGenerator(seed: seed)
        func roll(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        func identifier() -> UUID {
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) { bytes in
                for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
            }
            return UUID(uuid: raw)
        }
        let replicas = (0..<3).map { _ in ReplicaID(uuid: identifier()) }
        var sequences = [UInt64](repeating: 0, count: replicas.count)
        func event(_ kind: Event.Kind) -> Event {
            let replica = roll(0...2)
            sequences[replica] += 1
            return Event(id: EventID(origin: replicas[replica], counter: sequences[replica]), kind: kind)
        }
        func time(_ halfMinutes: ClosedRange<Int>) -> Timestamp {
            Timestamp(milliseconds: start.milliseconds + Int64(roll(halfMinutes)) * 30_000)
        }

        names = (0..<14).map { _ in RecordName(uuid: identifier()) }
        var events: [Event] = [], redactedCopies: [Event] = []
        for name in names.dropLast() {
            var expiries: [Timestamp] = []
            for _ in 0..<[0, 1, 1, 1, 1, 1, 1, 2, 2, 2][roll(0...9)] {
                let ancient = roll(0...19) == 0
                let createdAt = ancient ? Timestamp(milliseconds: -86_400_000 - Int64(roll(0...100)) * 30_000) : time(-20...20)
                let expiresAt = Timestamp(milliseconds: createdAt.milliseconds + Int64(roll(2...60)) * 30_000)
                let created = event(.shareCreated(ShareCreated(
                    recordName: name, vCard: smallCard(roll(0...999)), createdAt: createdAt, expiresAt: expiresAt)))
                events.append(created)
                expiries.append(expiresAt)
                if roll(0...9) < 3 {
                    redactedCopies.append(Event(id: created.id, kind: .shareCreated(ShareCreated(
                        recordName: name, vCard: nil, createdAt: createdAt, expiresAt: expiresAt))))
                }
            }
            for _ in 0..<[0, 0, 0, 1, 1, 1, 1, 2, 2, 2][roll(0...9)] {
                let ttl = !expiries.isEmpty && roll(0...1) == 0
                events.append(event(.shareExpired(ShareExpired(
                    recordName: name, at: ttl ? expiries[roll(0...expiries.count - 1)] : time(-20...60),
                    reason: ttl ? .ttl : .revoked))))
            }
        }
        events.append(event(.unknown(code: UInt8(roll(3...255)), flags: UInt8(roll(0...255)), payload: [1, 2, 3])))
        events.append(event(.unknown(code: UInt8(roll(3...255)), flags: 0, payload: [])))
        var deliveries = events + redactedCopies + (0..<6).map { _ in events[roll(0...events.count - 1)] }
        deliveries.shuffle(using: &random)

        var steps: [ConvergenceStep] = [.create(card: roll(0...999), ttl: .seconds(60 * roll(10...30)))]
        var next = 0
        while next < deliveries.count {
            let end = min(next + roll(1...4), deliveries.count)
            steps.append(.deliver(Array(deliveries[next..<end])))
            next = end
            for _ in 0..<2 {
                switch roll(0...9) {
                case 0...2: steps.append(.advance(.seconds(30 * roll(1...10))))
                case 3: steps.append(.sweep(batchSize: roll(1...3)))
                case 4: steps.append(.compact(batchSize: roll(1...3)))
                case 5...6: steps.append(.revoke(choice: roll(0...999)))
                case 7...8: steps.append(.create(card: roll(0...999), ttl: .seconds(60 * roll(1...30))))
                default: break
                }
            }
        }
        steps += [.advance(.seconds(4 * 3600)), .sweep(batchSize: 2), .compact(batchSize: 2)]
        steps += stride(from: 0, to: deliveries.count, by: 7).map { .deliver(Array(deliveries[$0..<min($0 + 7, deliveries.count)])) }
        self.steps = steps
    }
}
