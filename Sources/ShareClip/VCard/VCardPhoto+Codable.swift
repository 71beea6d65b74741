import Foundation

extension VCardPhoto: Codable {
    private enum CodingKeys: String, CodingKey {
        case mediaType, byteCount
    }

    /// Reads `{"mediaType", "byteCount"}`; ``bytes`` is empty because JSON never carries them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mediaType = try container.decodeIfPresent(String.self, forKey: .mediaType)
        byteCount = try container.decode(Int.self, forKey: .byteCount)
        bytes = Data()
    }

    /// Writes `{"mediaType": … | null, "byteCount": …}`; both keys are always present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mediaType, forKey: .mediaType)
        try container.encode(byteCount, forKey: .byteCount)
    }
}
