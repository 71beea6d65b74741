extension FuzzSeeds {
    /// `session` inputs (`SessionFuzzInput`): well-formed exchanges, each
    /// ending with the session complete, which `FuzzCorpusTests` checks.
    /// Message kinds are `FrameType` raw values (4 pull, 5 batch, 6 ack,
    /// 7 caughtUp, 8 snapshotRequired, 9 snapshotRequest, 10 snapshotBatch,
    /// 11 snapshotEnd, 12 fetch, 13 records, 14 heartbeat, 16 bye); 0 is a
    /// commit.
    static var sessions: [[UInt8]] {
        let client: UInt8 = 0, server: UInt8 = 1, clip: UInt8 = 2
        let pull: UInt8 = 1 << 2, push: UInt8 = 1 << 3, follow: UInt8 = 1 << 4
        return [
            // A main client pulling: a batch of two through 2, a heartbeat, caughtUp(2).
            [client | pull, 0, 0, 5, 0x22, 14, 7, 0x02],
            // A server pulled from, its log at 4: a pull from the start, two reads of two
            // events (two batches out at once), caughtUp(4), the two acks, bye.
            [server | pull, 0, 0x04, 4, 0x00, 0x00, 0x44, 0x44, 6, 2, 6, 4, 16],
            // A main client both ways, its log at 2: the server's pull waits while the
            // client's own pull takes a batch through 1; caughtUp(1) lets it go: a read of
            // two events through 2, caughtUp(2); the server's ack completes the session.
            [client | pull | push, 0, 0x02, 4, 0x00, 0x00, 5, 0x11, 7, 0x01, 0x44, 6, 2],
            // A server followed, its log at 1: a batch through 1, caughtUp(1), the ack; a
            // commit moves the log to 2, a batch through 2 goes out, its ack; bye.
            [server | pull | follow, 0, 0x01, 4, 0x04, 0x00, 0x20, 6, 1, 0, 1, 0x20, 6, 2, 16],
            // A server pushed to, its cursor on the client at 1 holding 2 of its events:
            // a batch of two through 3, caughtUp(3), bye.
            [server | push, 0x45, 0, 5, 0x23, 7, 0x03, 16],
            // A main client whose cursor is of an older epoch: snapshotRequired, a part of
            // two, its end at 3, a pull from there, a batch through 4, caughtUp(4).
            [client | pull, 0x16, 0, 8, 0x00, 10, 0x02, 11, 0x03, 5, 0x14, 7, 0x04],
            // A server trimmed through 2, its log at 5, pulled after 1: snapshotRequired,
            // the request, a snapshot in two reads, the pull after it, caughtUp(5), bye.
            [server | pull, 0, 0x15, 4, 0x01, 0x01, 0x00, 9, 0x68, 0x64, 4, 0x01, 0x05, 0x00, 16],
            // A clip fetching three names: the first two answered, the third asked again
            // and answered.
            [client | clip, 0, 0x03, 13, 0x81, 0x01, 13, 0xC0, 0x02],
            // A clip's server: a fetch of three names, a heartbeat, bye.
            [server | clip, 0, 0, 12, 0x02, 14, 16],
            // A server that made 1 event pulled by a peer claiming 3 of them: the claim
            // check refuses it (claimsUnmadeEvents), and nothing is sent.
            [server | pull, 0, 0x02, 4, 0xC0, 0x00, 0x01],
            // A pushing client that made none, whose server claims 1 of its events: refused.
            [client | push, 0, 0x02, 4, 0x40, 0x00, 0x00],
            // A server that made 2, pulled after 2 by a peer holding 2 of its events, its
            // log at 3: the check passes, a batch through 3, caughtUp(3), the ack, bye.
            [server | pull, 0, 0x03, 4, 0x81, 0x02, 0x02, 0x20, 6, 3, 16],
        ]
    }
}
