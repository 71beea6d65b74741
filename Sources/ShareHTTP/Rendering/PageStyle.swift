internal import COpenSSL

/// The pages' one style sheet, inline, and the `Content-Security-Policy`
/// that allows it by its SHA-256 and nothing else: no scripts at all,
/// images from `data:` only, no framing, no forms, no base URL.
enum PageStyle {
    static let css = """
    :root{color-scheme:light dark;--bg:#f2f2f7;--card:#fff;--ink:#1c1c1e;--muted:#6c6c70;--accent:#0a66d8}\
    @media (prefers-color-scheme:dark){:root{--bg:#000;--card:#1c1c1e;--ink:#f2f2f7;--muted:#98989f;--accent:#4aa3ff}}\
    *{box-sizing:border-box}\
    body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--ink);\
    font:17px/1.4 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;padding:24px}\
    main{width:100%;max-width:420px;background:var(--card);border-radius:20px;padding:32px 24px;text-align:center;\
    box-shadow:0 8px 30px rgba(0,0,0,.08)}\
    .photo,.initials{width:128px;height:128px;border-radius:50%;margin:0 auto 20px;display:block}\
    .photo{object-fit:cover}\
    .initials{display:flex;align-items:center;justify-content:center;font-size:48px;font-weight:600;color:#fff;\
    background:linear-gradient(135deg,#8e8e93,#636366)}\
    h1{font-size:28px;line-height:1.2;margin:0 0 6px;overflow-wrap:anywhere}\
    .title,.org{margin:0;color:var(--muted);overflow-wrap:anywhere}\
    .org{font-weight:600}\
    .save{display:block;margin:28px 0 12px;padding:14px 20px;border-radius:14px;background:var(--accent);color:#fff;\
    text-decoration:none;font-weight:600}\
    .note{font-size:14px;color:var(--muted);margin:0}
    """

    /// The policy sent with every page.
    static let contentSecurityPolicy =
        "default-src 'none'; img-src data:; style-src 'sha256-\(sha256Base64(css))'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// SHA-256 of `text`'s UTF-8, in base64, through OpenSSL (ShareLog
    /// writes no cryptography of its own).
    private static func sha256Base64(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        var encoded = [UInt8](repeating: 0, count: 4 * ((digest.count + 2) / 3) + 1)
        let length = EVP_EncodeBlock(&encoded, digest, Int32(digest.count))
        return String(decoding: encoded.prefix(Int(length)), as: UTF8.self)
    }
}
