import ShareClip

/// A share just created.
///
/// Equal when the record name, times and link domain are: the link is a
/// function of the domain and the record name, so two receipts are equal
/// exactly when all they show (`link` included) is.
public struct CreatedShare: Hashable, Sendable {
    public let recordName: RecordName
    public let createdAt: Timestamp
    public let expiresAt: Timestamp
    /// The domain `link` points at: the store's `Options.linkDomain`.
    let linkDomain: AppClipDomain

    /// The App Clip link to put in the QR code:
    /// `https://<linkDomain>/appclip?id=<record name>`. Made when asked
    /// for (one string allocation), so that a batch of creates makes
    /// none its caller does not use.
    public var link: String { AppClipLinkBuilder(domain: linkDomain).link(for: .share(recordName: recordName.uuid)) }
}
