import Foundation
import ShareClip
import ShareLog

/// The fallback page for people who open a card link without iOS: the
/// card's name, title, organization and photo, a button that downloads the
/// `.vcf`, and the Smart App Banner tag for Safari. It loads nothing from
/// elsewhere: the style is inline (allowed by its hash), the photo a
/// `data:` URI, and there is no script.
///
/// Every field from the card is HTML-escaped (`HTMLText`); a photo is
/// embedded only when its media type is one a browser shows as an image.
public enum CardPage {
    /// Media types a photo may be embedded as: anything else (SVG above
    /// all, which can carry script) is left out.
    static let imageTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// The page of a live share. `downloadPath` is the `.vcf` link.
    public static func render(_ share: Share, preview: VCardPreview?, downloadPath: String, settings: PageSettings) -> [UInt8] {
        let name = preview?.name ?? "A shared contact"
        var body = ""
        if let photo = preview?.photo, let type = photo.mediaType, imageTypes.contains(type) {
            body += "<img class=\"photo\" alt=\"\" src=\"data:\(type);base64,\(photo.bytes.base64EncodedString())\">"
        } else {
            body += "<div class=\"initials\" aria-hidden=\"true\">\(HTMLText.escape(initials(of: name)))</div>"
        }
        body += "<h1>\(HTMLText.escape(name))</h1>"
        if let title = preview?.title { body += "<p class=\"title\">\(HTMLText.escape(title))</p>" }
        if let organization = preview?.organization { body += "<p class=\"org\">\(HTMLText.escape(organization))</p>" }
        body += "<a class=\"save\" href=\"\(HTMLText.escape(downloadPath))\">Add to Contacts</a>"
        body += "<p class=\"note\">Shared until \(HTMLText.escape(HTTPDate.readable(share.expiresAt))). On iPhone, this link opens the App Clip.</p>"
        return document(title: name, body: body, settings: settings)
    }

    /// A page with a heading and a sentence, for answers without a card.
    public static func notice(_ heading: String, _ message: String, settings: PageSettings) -> [UInt8] {
        document(title: heading, body: "<h1>\(HTMLText.escape(heading))</h1><p class=\"note\">\(HTMLText.escape(message))</p>", settings: settings)
    }

    private static func document(title: String, body: String, settings: PageSettings) -> [UInt8] {
        Array("""
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">\
        <meta name="viewport" content="width=device-width, initial-scale=1">\
        <meta name="referrer" content="no-referrer">\
        \(settings.bannerTag)\
        <title>\(HTMLText.escape(title))</title>\
        <style>\(PageStyle.css)</style></head>
        <body><main>\(body)</main></body></html>

        """.utf8)
    }

    /// Up to two initials of a name, for the avatar when there is no photo.
    static func initials(of name: String) -> String {
        let letters = name.split(separator: " ").compactMap { $0.first(where: \.isLetter) }
        return String(letters.prefix(2)).uppercased()
    }
}
