import ShareHTTP
import Testing

@Suite struct AcceptHeaderTests {
    @Test(arguments: [
        (nil, Representation.page),
        ("*/*", .page),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", .page),
        ("text/vcard", .vCard),
        ("application/json", .json),
        ("application/vnd.sharelog.events", .events),
        ("image/png", .page),
        ("text/vcard;q=0.5, application/json", .json),
        ("text/*", .page),
        ("TEXT/VCARD", .vCard),
    ] as [(String?, Representation)])
    func negotiatesTheRepresentationAClientAsksFor(accept: String?, expected: Representation) {
        #expect(AcceptHeader.negotiate(accept) == expected)
    }

    @Test func refusingThePageAndNamingNothingElseIsNotAcceptable() {
        #expect(AcceptHeader.negotiate("text/html;q=0") == nil)
        #expect(AcceptHeader.negotiate("*/*;q=0") == nil)
        #expect(AcceptHeader.negotiate("text/html;q=0, text/vcard") == .vCard)
    }
}
