extension VCardPreview: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, title, organization, photo, warnings
    }

    /// Reads the JSON shape described on ``VCardPreview``; missing or `null` fields are `nil`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        organization = try container.decodeIfPresent(String.self, forKey: .organization)
        photo = try container.decodeIfPresent(VCardPhoto.self, forKey: .photo)
        warnings = try container.decodeIfPresent([VCardWarning].self, forKey: .warnings) ?? []
    }

    /// Writes every key, using `null` for absent fields, so the shape never changes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(title, forKey: .title)
        try container.encode(organization, forKey: .organization)
        try container.encode(photo, forKey: .photo)
        try container.encode(warnings, forKey: .warnings)
    }
}
