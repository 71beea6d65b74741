import ShareClip

/// Text a peer chose (an `error` message's words), made safe to put in a
/// log line: quoted, cut, and with everything that could pass for the
/// log's own structure escaped.
///
/// A peer's text is never trusted to be short or printable. Quoted, a
/// line break cannot start a line that looks like the server's own, an
/// escape sequence cannot rewrite a terminal, a bidirectional override
/// cannot reorder what a reader sees, and the cut keeps one message from
/// filling a log.
enum PeerText {
    /// The most UTF-8 bytes of a peer's text kept; the rest is counted.
    static let maxBytes = 300

    /// `text` in double quotes, escaped as `EscapedText` escapes it, a
    /// double quote included; cut after `maxBytes` bytes of text with the
    /// count of the bytes left out.
    ///
    /// Cost: one pass over at most `maxBytes` bytes of the text.
    static func quoted(_ text: String) -> String {
        var out = "\""
        var kept = 0
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            let size = UTF8.width(scalar)
            guard kept + size <= maxBytes else {
                let left = text.utf8.count - kept
                return out + "\"… (\(left) more bytes)"
            }
            kept += size
            out += EscapedText.escaped(scalar, quoting: true)
        }
        return out + "\""
    }
}
