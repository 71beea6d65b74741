/// What a gateway serves besides the store, and its limits (docs/HTTP.md).
public struct GatewayConfiguration: Sendable {
    /// The App Clips allowed to claim the domain (`appclips` in the site
    /// association file); the first one's bundle id goes in the page's banner.
    public var clipAppIDs: [AppIdentifier] = []
    /// The full apps that take `/appclip` links (`applinks`).
    public var fullAppIDs: [AppIdentifier] = []
    /// The full app's App Store id, for the Smart App Banner: digits only.
    public var appStoreID: String? {
        didSet { if let appStoreID { precondition(Self.isAppStoreID(appStoreID), "check App Store ids with isAppStoreID first") } }
    }
    /// How long a client may keep a card.
    public var cache = CachePolicy()
    /// The limit on all share requests per client address; nil: none.
    public var requestLimit: RateLimit? = .requests
    /// The far stricter limit on misses (400, 404, 410); nil: none.
    public var missLimit: RateLimit? = .misses
    /// Peers whose `X-Forwarded-For` names the client (a TLS terminator or
    /// load balancer). From anyone else the field is ignored.
    public var trustedProxies: Set<ClientAddress> = []
    /// The longest request target answered; longer gets 414.
    public var maxTargetBytes = 2048
    /// The most header bytes (names and values) answered; more gets 431.
    public var maxHeaderBytes = 8192
    /// Whether answers carry `Strict-Transport-Security`: when the gateway
    /// itself serves TLS.
    public var strictTransportSecurity = false

    public init() {}

    /// Whether `text` is an App Store id: 1 to 12 digits.
    public static func isAppStoreID(_ text: String) -> Bool {
        (1...12).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The page settings these ids give.
    var pageSettings: PageSettings {
        PageSettings(appStoreID: appStoreID, clipBundleID: clipAppIDs.first?.bundleID)
    }
}
