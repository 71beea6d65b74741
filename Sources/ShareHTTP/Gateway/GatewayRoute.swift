/// The routes the gateway serves, as the access log names them. A route
/// name never holds anything the client sent.
public enum GatewayRoute: String, Hashable, Sendable {
    /// `/appclip`: a share, by content negotiation.
    case share = "/appclip"
    /// `/.well-known/apple-app-site-association` and `/apple-app-site-association`.
    case siteAssociation = "/apple-app-site-association"
    /// `/v1/shares` and `/v1/shares/ID`: the write API (docs/HTTP.md "The write API").
    case shares = "/v1/shares"
    /// Any other path: 404.
    case unknown = "-"
}
