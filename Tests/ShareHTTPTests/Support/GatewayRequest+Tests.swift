import ShareHTTP
import ShareLog

/// The request target of a share's link.
func link(_ name: RecordName) -> String { "/appclip?id=\(name)" }

extension GatewayRequest {
    /// A `GET` with the given fields, from 192.0.2.1 unless told otherwise.
    static func get(
        _ target: String, accept: String? = nil, ifNoneMatch: String? = nil, forwardedFor: String? = nil,
        headerBytes: Int = 200, from client: ClientAddress = .ipv4(0xC000_0201)
    ) -> GatewayRequest {
        GatewayRequest(
            method: "GET", target: target, accept: accept, ifNoneMatch: ifNoneMatch, forwardedFor: forwardedFor,
            headerBytes: headerBytes, client: client)
    }

    /// The same request with another method.
    func with(method: String) -> GatewayRequest {
        var copy = self
        copy.method = method
        return copy
    }
}

extension GatewayResponse {
    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}
