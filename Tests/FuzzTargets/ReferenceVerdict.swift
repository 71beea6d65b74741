@testable import ShareSync

/// What the reference session (`ReferenceSession`) says the machine must
/// do with one input: take it with exactly these actions, or refuse it.
enum ReferenceVerdict {
    /// Why the machine must refuse.
    enum Refusal: CustomStringConvertible {
        /// `SessionError.unexpected` of this type, whatever the text.
        case unexpected(FrameType)
        /// Exactly this error.
        case error(SessionError)
        /// `SessionError.claimsUnmadeEvents` with these counts.
        case claimsUnmadeEvents(held: UInt64, made: UInt64)

        func matches(_ error: SessionError) -> Bool {
            switch self {
            case .unexpected(let type): if case .unexpected(type, _) = error { true } else { false }
            case .error(let expected): error == expected
            case .claimsUnmadeEvents(let held, let made):
                if case .claimsUnmadeEvents(let claim) = error { claim.held == held && claim.made == made } else { false }
            }
        }

        var description: String {
            switch self {
            case .unexpected(let type): "unexpected(\(type))"
            case .error(let error): "\(error)"
            case .claimsUnmadeEvents(let held, let made): "claimsUnmadeEvents(held: \(held), made: \(made))"
            }
        }
    }

    case accept([SessionAction])
    case refuse(Refusal)

    /// `self`, with `more` after its actions when it accepts.
    func then(_ more: () -> ReferenceVerdict) -> ReferenceVerdict {
        guard case .accept(let actions) = self else { return self }
        switch more() {
        case .accept(let next): return .accept(actions + next)
        case .refuse(let refusal): return .refuse(refusal)
        }
    }
}
