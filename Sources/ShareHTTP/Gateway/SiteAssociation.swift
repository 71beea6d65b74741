import SharePrimitives

/// The `apple-app-site-association` file (docs/HTTP.md): the App Clips
/// that may claim this domain, and the full apps that take its `/appclip`
/// links. Built once; served byte for byte.
///
/// `{"appclips":{"apps":["ABCDE12345.com.example.cards.Clip"]},
///   "applinks":{"details":[{"appIDs":["ABCDE12345.com.example.cards"],"components":[{"/":"/appclip","comment":"card links"}]}]}}`
public enum SiteAssociation {
    /// The file's bytes, or nil when there is no app id at all (then the
    /// route answers 404).
    public static func file(clips: [AppIdentifier], fullApps: [AppIdentifier]) -> [UInt8]? {
        guard !clips.isEmpty || !fullApps.isEmpty else { return nil }
        let clipList = clips.map { JSONText.quoted($0.description) }.joined(separator: ",")
        let appList = fullApps.map { JSONText.quoted($0.description) }.joined(separator: ",")
        var sections: [String] = []
        if !clips.isEmpty { sections.append("\"appclips\":{\"apps\":[\(clipList)]}") }
        if !fullApps.isEmpty {
            sections.append("\"applinks\":{\"details\":[{\"appIDs\":[\(appList)],\"components\":[{\"/\":\"/appclip\",\"comment\":\"card links\"}]}]}")
        }
        return Array("{\(sections.joined(separator: ","))}\n".utf8)
    }
}
