/// vCards written by hand for the integration tests, a different one for
/// each label and index, so a share answered with the wrong card shows.
enum TestCard {
    static func make(_ label: String, _ index: Int) -> [UInt8] {
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:\(label) Person \(index)\r\nORG:\(label) Works\r\nTITLE:Card \(index)\r\nEND:VCARD\r\n".utf8)
    }
}
