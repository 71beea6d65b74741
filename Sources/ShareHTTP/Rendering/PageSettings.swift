/// What the gateway's pages say about the apps: the Smart App Banner's
/// `app-id` (the App Store id) and `app-clip-bundle-id`.
public struct PageSettings: Hashable, Sendable {
    /// The full app's App Store id (`--app-store-id`), digits only.
    public var appStoreID: String?
    /// The clip's bundle id without the team prefix, from the first `--app-id`.
    public var clipBundleID: String?

    public init(appStoreID: String? = nil, clipBundleID: String? = nil) {
        self.appStoreID = appStoreID
        self.clipBundleID = clipBundleID
    }

    /// The Smart App Banner tag, or nothing when there is no App Store id
    /// (Safari shows no banner without one).
    var bannerTag: String {
        guard let appStoreID else { return "" }
        var content = "app-id=\(appStoreID)"
        if let clipBundleID { content += ", app-clip-bundle-id=\(clipBundleID), app-clip-display=card" }
        return "<meta name=\"apple-itunes-app\" content=\"\(HTMLText.escape(content))\">"
    }

    /// A hash of these settings, so entity tags change when the page would.
    var fingerprint: UInt64 {
        var hash = FNV1a()
        hash.add(appStoreID ?? "")
        hash.add([0])
        hash.add(clipBundleID ?? "")
        hash.add(PageStyle.css)
        return hash.value
    }
}
