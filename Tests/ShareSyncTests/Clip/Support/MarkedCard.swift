/// A vCard written by hand whose note is a marker string found nowhere
/// else: a test that finds the marker in a store's raw files, or in what a
/// command printed, has found the card.
struct MarkedCard {
    /// The `FN` of the card, as a preview shows it.
    let name: String
    let marker: String
    let bytes: [UInt8]

    init(name: String, marker: String) {
        self.name = name
        self.marker = marker
        bytes = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:\(name)\r\nORG:Clip Lifecycle Works\r\nNOTE:\(marker)\r\nEND:VCARD\r\n".utf8)
    }
}
