import ShareLog
@testable import ShareSync

/// One `session` input driven through `SessionMachine` as `SessionRunner`
/// drives it, minus the store and the channel: the machine's first
/// actions, then, while it is not complete, the input's stimuli (a peer's
/// message, or other processes' work on the log: commits, handed over with
/// `committed(_:)` while the machine waits for one, and trims). Each batch
/// of actions is carried out in order, a read's (or a claim check's)
/// answer taken from the input and its actions put first, as the runner
/// does; nothing is answered that the machine did not ask for. The first
/// `SessionError` ends the run.
///
/// Every answer of the machine goes through `SessionInvariants` and is
/// compared with `ReferenceSession`'s; `isComplete` and `ended` must agree
/// with the reference's after every action, and once complete the session
/// stays so.
struct SessionFuzzRun {
    private var input: SessionFuzzInput
    private var log: SessionFuzzLog
    private var machine: SessionMachine
    private var reference: ReferenceSession
    private(set) var invariants: SessionInvariants
    private(set) var messagesTaken = 0
    private var wasComplete = false
    /// The replica id of the side the machine plays, which a refused claim names.
    static let ownReplica = ReplicaID("5a5a5a5a-5a5a-4a5a-8a5a-5a5a5a5a5a5a")!

    init(_ bytes: [UInt8]) {
        input = SessionFuzzInput(bytes)
        log = input.log
        machine = SessionMachine(
            side: input.side, peer: input.peer, maxBatchBytes: input.maxBatchBytes, receiving: input.receiving, fetching: input.names)
        reference = ReferenceSession(
            side: input.side, peer: input.peer, maxBatchBytes: input.maxBatchBytes, receiving: input.receiving, names: input.names)
        invariants = SessionInvariants(side: input.side, peer: input.peer, cursor: input.receiving?.cursor)
    }

    var side: SessionMachine.Side { input.side }
    var peer: EstablishedPeer { input.peer }
    var isComplete: Bool { machine.isComplete }
    var ended: Bool { machine.ended }

    /// Drives the machine to its end, its first error, or the input's end.
    ///
    /// - Returns: the error the machine refused a step with, if any.
    /// - Throws: `FuzzViolation` for a broken contract.
    mutating func drive() throws(FuzzViolation) -> SessionError? {
        try FuzzViolation.check(
            SessionMachine.receives(side, peer) == ReferenceSession.receives(side, peer),
            "SessionMachine.receives says \(SessionMachine.receives(side, peer)) for the \(invariants.session)")
        let first = machine.start()
        try compare(first, reference.start(), after: .start)
        if let error = try perform(first) { return error }
        while !machine.isComplete, let stimulus = input.stimulus(asked: invariants.lastFetch) {
            switch stimulus {
            case .message(let message):
                let verdict = reference.receive(message)
                let actions: [SessionAction]
                do {
                    actions = try machine.receive(message)
                } catch {
                    try invariants.checkRefusal(of: message, error)
                    try settle(.failure(error), verdict, after: .message(message))
                    return error
                }
                try invariants.check(actions, taking: message)
                try settle(.success(actions), verdict, after: .message(message))
                messagesTaken += 1
                if let error = try perform(actions) { return error }
            case .work(let choice):
                log.work(choice)
                if let error = try perform(handOverCommits()) { return error }
            }
            try checkCompletion()
        }
        return nil
    }

    /// Carries out `actions` in order, as `SessionRunner.perform` does.
    private mutating func perform(_ actions: [SessionAction]) throws(FuzzViolation) -> SessionError? {
        var queue = actions[...]
        while let action = queue.popFirst() {
            try checkCompletion()
            switch action {
            case .send, .apply, .directionDone, .answerFetch:
                continue
            case .readLog(let after, let epoch, let maxBytes):
                let read = try log.read(after: after, epoch: epoch, maxBytes: maxBytes, choice: input.byte())
                let next = machine.read(read)
                try compare(next, reference.read(read), after: .read(read))
                queue = next + queue
            case .readSnapshot(let after, let maxBytes):
                let part = try log.snapshot(after: after, maxBytes: maxBytes, choice: input.byte())
                let next = machine.readSnapshot(part)
                try compare(next, reference.readSnapshot(part), after: .snapshot(part))
                queue = next + queue
            case .awaitCommit:
                queue = try handOverCommits() + queue
            case .checkClaim:
                let made = UInt64(input.byte() & 3)
                let verdict = reference.claimChecked(madeHere: made)
                let next: [SessionAction]
                do {
                    next = try machine.claimChecked(madeHere: made, by: Self.ownReplica)
                } catch {
                    try settle(.failure(error), verdict, after: .claimChecked(madeHere: made))
                    return error
                }
                try settle(.success(next), verdict, after: .claimChecked(madeHere: made))
                queue = next + queue
            }
        }
        try checkCompletion()
        return nil
    }

    /// What `SessionRunner.committedActions` does at an `.awaitCommit` and
    /// on each commit after: hands over the log's end while the machine
    /// waits for one.
    private mutating func handOverCommits() throws(FuzzViolation) -> [SessionAction] {
        try FuzzViolation.check(
            machine.awaitingCommitAfter == reference.sender?.awaitingCommitAfter,
            "the machine waits for a commit after \(machine.awaitingCommitAfter.map { "\($0)" } ?? "nothing"), "
                + "the reference after \(reference.sender?.awaitingCommitAfter.map { "\($0)" } ?? "nothing")")
        guard machine.awaitingCommitAfter != nil else { return [] }
        let next = machine.committed(log.end)
        try compare(next, reference.committed(log.end), after: .committed(log.end))
        return next
    }

    /// The machine's answer against the reference's.
    private mutating func settle(
        _ result: Result<[SessionAction], SessionError>, _ verdict: ReferenceVerdict, after cause: SessionInvariants.Cause
    ) throws(FuzzViolation) {
        switch (result, verdict) {
        case (.success(let actions), .accept(let expected)):
            try compare(actions, expected, after: cause)
        case (.failure(let error), .refuse(let refusal)):
            try FuzzViolation.check(refusal.matches(error), "after \(cause) the machine refused with \(error), the reference with \(refusal)")
            try FuzzViolation.check(!error.description.isEmpty, "a SessionError has no description")
        case (.success(let actions), .refuse(let refusal)):
            throw FuzzViolation("after \(cause) the machine did \(actions); the reference refuses with \(refusal)")
        case (.failure(let error), .accept(let expected)):
            throw FuzzViolation("after \(cause) the machine refused with \(error); the reference does \(expected)")
        }
    }

    /// Checks `actions` on their own, then against the reference's.
    private mutating func compare(_ actions: [SessionAction], _ expected: [SessionAction], after cause: SessionInvariants.Cause) throws(FuzzViolation) {
        if case .message = cause {} else { try invariants.check(actions, after: cause) }
        try FuzzViolation.check(
            actions.map(Self.comparable) == expected.map(Self.comparable), "after \(cause) the machine did \(actions); the reference does \(expected)")
    }

    /// `isComplete` and `ended` as the reference has them; once
    /// complete, for good.
    private mutating func checkCompletion() throws(FuzzViolation) {
        try FuzzViolation.check(!wasComplete || machine.isComplete, "the session was complete, and is not any more")
        wasComplete = machine.isComplete
        try FuzzViolation.check(
            machine.isComplete == reference.isComplete && machine.ended == reference.ended,
            "the machine says complete \(machine.isComplete), ended \(machine.ended); the reference \(reference.isComplete), \(reference.ended)")
    }

    /// An action with what the docs leave open taken out: an error's text,
    /// the horizon of a `snapshotRequired` that is not about it.
    private static func comparable(_ action: SessionAction) -> SessionAction {
        switch action {
        case .send(.error(let code, _)): .send(.error(code: code, message: ""))
        case .send(.snapshotRequired(let reason, let epoch, _)) where reason != .behindHorizon:
            .send(.snapshotRequired(reason: reason, epoch: epoch, horizon: 0))
        default: action
        }
    }
}
