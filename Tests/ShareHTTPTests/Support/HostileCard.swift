import Foundation

/// Cards whose fields try to break out of the page.
enum HostileCard {
    static let name = "<script>alert(1)</script>"
    static let title = "\"><img src=x onerror=alert(2)>"
    static let organization = "O'Hare \"Quotes\" & <b onmouseover='alert(3)'>"

    static let card = Array("""
        BEGIN:VCARD\r
        VERSION:3.0\r
        FN:\(name)\r
        TITLE:\(title)\r
        ORG:\(organization)\r
        END:VCARD\r

        """.utf8)

    /// A card whose photo is an SVG image that carries a script.
    static let svgPhotoCard: [UInt8] = {
        let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(4)\"><script>alert(5)</script></svg>".utf8)
        return Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Vector Person\r\nPHOTO;ENCODING=b;TYPE=image/svg+xml:\(svg.base64EncodedString())\r\nEND:VCARD\r\n".utf8)
    }()

    /// A card whose photo is a (small, made-up) JPEG, which the page may embed.
    static let jpegPhotoCard: [UInt8] = {
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0xFF, 0xD9])
        return Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Pixel Person\r\nPHOTO;ENCODING=b;TYPE=JPEG:\(jpeg.base64EncodedString())\r\nEND:VCARD\r\n".utf8)
    }()
}

/// What a browser would run from a page: `<script` anywhere, or an `on…=`
/// event handler attribute inside a tag. Empty when there is none.
func activeContent(in html: String) -> [String] {
    var found: [String] = []
    if html.lowercased().contains("<script") { found.append("<script") }
    var rest = Substring(html)
    while let open = rest.firstIndex(of: "<") {
        let close = rest[open...].firstIndex(of: ">") ?? rest.endIndex
        let tag = rest[open..<close].lowercased()
        let words = tag.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "/" || $0 == "\"" || $0 == "'" })
        for word in words.dropFirst() where word.hasPrefix("on") && word.contains("=") {
            found.append(String(tag))
        }
        rest = close < rest.endIndex ? rest[rest.index(after: close)...] : ""
    }
    return found
}
