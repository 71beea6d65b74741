import ShareClip
import Testing

@Suite struct AppClipLinkErrorTests {
    @Test(arguments: [
        (AppClipLinkError.notAURL(reason: "the text is empty"), "the text is empty"),
        (.notHTTPS(scheme: "http"), "\"http:\""),
        (.userInfoPresent(userInfo: "cards.example.com"), "\"cards.example.com@\""),
        (.portPresent(port: "8443"), "\":8443\""),
        (.unknownHost(host: "evil-example.com"), "\"evil-example.com\""),
        (.unknownHost(host: ""), "no host"),
        (.unknownPath(path: "/share"), "\"/share\""),
        (.unknownPath(path: ""), "no path"),
        (.fragmentPresent(fragment: "top"), "\"#top\""),
        (.missingID, "id="),
        (.duplicateID(values: ["a", "b"]), "2 cards"),
        (.malformedID(value: "abc"), "\"abc\""),
        (.malformedID(value: ""), "empty"),
    ])
    func messagesQuoteTheOffendingPartOfTheLink(error: AppClipLinkError, quote: String) {
        #expect(error.description.contains(quote), "\(error.description)")
    }

    @Test(arguments: [
        AppClipLinkError.notAURL(reason: "x"), .notHTTPS(scheme: "http"), .userInfoPresent(userInfo: "u"),
        .portPresent(port: "1"), .unknownHost(host: "h.example"), .unknownPath(path: "/p"),
        .fragmentPresent(fragment: "f"), .missingID, .duplicateID(values: ["a", "b"]), .malformedID(value: "v"),
    ])
    func messagesSayWhatToDoNext(error: AppClipLinkError) {
        let actions = ["Copy", "Ask", "ask", "Check", "Remove", "Don't", "Only open"]
        #expect(actions.contains { error.description.contains($0) }, "\(error.description)")
    }
}
