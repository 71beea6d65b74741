/// `Accept` values that select each representation.
enum Accepting {
    static let page = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    static let vCard = "text/vcard"
    static let json = "application/json"
    static let events = "application/vnd.sharelog.events"
    static let all: [String?] = [nil, page, vCard, json, events]
}
