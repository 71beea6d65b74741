import Foundation
import ShareLog

/// A share the gateway made for an upload: its 201 answer,
/// `{"recordName":"…","link":"https://…/appclip?id=…","createdAt":MS,"expiresAt":MS}`.
public struct UploadedShare: Hashable, Sendable {
    public let recordName: RecordName
    /// The App Clip link to put in the QR code.
    public let link: String
    public let createdAt: Timestamp
    public let expiresAt: Timestamp

    public init(recordName: RecordName, link: String, createdAt: Timestamp, expiresAt: Timestamp) {
        self.recordName = recordName
        self.link = link
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Reads a 201 answer's body.
    ///
    /// - Throws: `GatewayClientError.unexpectedAnswer` for a body that is
    ///   not one.
    init(answer body: [UInt8], from url: GatewayURL) throws(GatewayClientError) {
        struct Fields: Decodable {
            let recordName: String
            let link: String
            let createdAt: Int64
            let expiresAt: Int64
        }
        guard let fields = try? JSONDecoder().decode(Fields.self, from: Data(body)), let uuid = UUID(uuidString: fields.recordName) else {
            throw .unexpectedAnswer(url: url.text, reason: "a 201 without a share's record name, link and times")
        }
        self.init(
            recordName: RecordName(uuid: uuid), link: fields.link, createdAt: Timestamp(milliseconds: fields.createdAt),
            expiresAt: Timestamp(milliseconds: fields.expiresAt))
    }
}
