import ShareLog

/// Watches each side's cursor of the other across the rounds of one pair:
/// a cursor names the peer's current epoch, never points past the peer's
/// last position, covers only events its holder has applied (every event
/// at or below it in the peer's log is in the holder's log), and never
/// moves back within an epoch.
struct SyncCursorWatch {
    private var last: [String: PeerCursor] = [:]

    /// Checks `holder`'s cursor of `peer`; `labels` name them ("B", "A").
    mutating func check(_ holder: SyncStoreState, of peer: SyncStoreState, labels: (String, String)) -> [CrashViolation] {
        let (holderLabel, peerLabel) = labels
        let key = "\(holderLabel) of \(peerLabel)"
        guard let cursor = holder.cursorOfPeer else {
            return last[key] == nil ? [] : [CrashViolation("\(holderLabel)'s cursor of \(peerLabel) is gone; it was \(describe(last[key]))")]
        }
        var violations: [CrashViolation] = []
        let name = "\(holderLabel)'s cursor of \(peerLabel) (epoch \(cursor.epoch), position \(cursor.position))"
        if cursor.epoch != peer.epoch {
            violations.append(CrashViolation("\(name) names another epoch than \(peerLabel)'s, \(peer.epoch)"))
        } else {
            if cursor.position > peer.lastPosition {
                violations.append(CrashViolation("\(name) points past \(peerLabel)'s last position, \(peer.lastPosition)"))
            }
            let unapplied = peer.positions.filter { $0.value <= cursor.position && holder.positions[$0.key] == nil }
                .sorted { $0.value < $1.value }
            if let first = unapplied.first {
                violations.append(CrashViolation("\(name) covers \(unapplied.count) events \(holderLabel) does not hold, "
                    + "the first \(first.key) at \(peerLabel)'s position \(first.value)"))
            }
        }
        if let previous = last[key], previous.epoch == cursor.epoch, cursor.position < previous.position {
            violations.append(CrashViolation("\(name) moved back from position \(previous.position)"))
        }
        last[key] = cursor
        return violations
    }

    private func describe(_ cursor: PeerCursor?) -> String {
        cursor.map { "epoch \($0.epoch), position \($0.position)" } ?? "none"
    }
}
