import SampleCards
import ShareHTTP
import ShareLog
import Testing

/// The vCard form: the stored card byte for byte, downloaded under a file
/// name made from its FN that no system can misread: no path, no quote, no
/// control, no leading dot, at most 64 characters, `contact` when nothing is
/// left; the UTF-8 name in `filename*` (RFC 8187).
@Suite struct VCardFilenameTests {
    @Test(arguments: [
        ("Jane Appleseed", #"attachment; filename="Jane Appleseed.vcf"; filename*=UTF-8''Jane%20Appleseed.vcf"#),
        (nil, #"attachment; filename="contact.vcf"; filename*=UTF-8''contact.vcf"#),
        ("   ", #"attachment; filename="contact.vcf"; filename*=UTF-8''contact.vcf"#),
        ("../../etc/passwd", #"attachment; filename="etcpasswd.vcf"; filename*=UTF-8''etcpasswd.vcf"#),
        ("...hidden", #"attachment; filename="hidden.vcf"; filename*=UTF-8''hidden.vcf"#),
        ("C:\\Windows\\evil", #"attachment; filename="CWindowsevil.vcf"; filename*=UTF-8''CWindowsevil.vcf"#),
        (#"Evil"; filename="x.exe"#, #"attachment; filename="Evil filenamex.exe.vcf"; filename*=UTF-8''Evil%20filenamex.exe.vcf"#),
        ("A\r\nB\tC\u{0}D", #"attachment; filename="A B CD.vcf"; filename*=UTF-8''A%20B%20CD.vcf"#),
        ("Zoë Ünal", #"attachment; filename="Zo nal.vcf"; filename*=UTF-8''Zo%C3%AB%20%C3%9Cnal.vcf"#),
        ("日本語", #"attachment; filename="contact.vcf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.vcf"#),
        ("O'Brien & Sons (UK), Ltd.",
         #"attachment; filename="O'Brien & Sons (UK), Ltd..vcf"; filename*=UTF-8''O%27Brien%20&%20Sons%20%28UK%29%2C%20Ltd..vcf"#),
        ("Jane 😀", #"attachment; filename="Jane.vcf"; filename*=UTF-8''Jane.vcf"#),
        ("<script>alert(1)</script>", #"attachment; filename="scriptalert(1)script.vcf"; filename*=UTF-8''scriptalert%281%29script.vcf"#),
    ] as [(String?, String)])
    func theFileNameIsTheSanitizedName(name: String?, expected: String) {
        #expect(VCardFilename.contentDisposition(name: name) == expected)
    }

    @Test func aLongNameIsCutTo64Characters() {
        let field = VCardFilename.contentDisposition(name: String(repeating: "Ab", count: 50) + " tail")
        let sixtyFour = String(repeating: "Ab", count: 32)
        #expect(field == "attachment; filename=\"\(sixtyFour).vcf\"; filename*=UTF-8''\(sixtyFour).vcf")
    }

    /// A name such as `é.bashrc` must not reach the plain `filename` as a
    /// dot file once its non-ASCII letters go.
    @Test func thePlainFileNameNeverStartsWithADot() {
        #expect(VCardFilename.contentDisposition(name: "é.bashrc").hasPrefix("attachment; filename=\"bashrc.vcf\""))
    }

    @Test func theVCardFormIsTheCardByteForByte() throws {
        let fixture = try GatewayFixture()
        let card = SampleCard.make(index: 21, photoBytes: 2000)
        let share = try fixture.add(card)
        let response = try fixture.gateway().respond(to: .get(link(share.recordName), accept: Accepting.vCard))
        #expect(response.status.code == 200)
        #expect(response.header("Content-Type") == "text/vcard; charset=utf-8")
        #expect(response.body == card)
        #expect(response.header("Content-Disposition") == #"attachment; filename="Person Sample21.vcf"; filename*=UTF-8''Person%20Sample21.vcf"#)
    }

    @Test func aHostileCardDownloadsUnderASafeName() throws {
        let fixture = try GatewayFixture()
        let share = try fixture.add(HostileCard.card)
        let response = try fixture.gateway().respond(to: .get(link(share.recordName) + "&format=vcf"))
        #expect(response.body == HostileCard.card)
        #expect(response.header("Content-Disposition")
            == #"attachment; filename="scriptalert(1)script.vcf"; filename*=UTF-8''scriptalert%281%29script.vcf"#)
        #expect(response.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func aCardWithoutANameDownloadsAsContact() throws {
        let fixture = try GatewayFixture()
        let card = Array("BEGIN:VCARD\r\nVERSION:3.0\r\nTEL:+1 555 0100\r\nEND:VCARD\r\n".utf8)
        let share = try fixture.add(card)
        let response = try fixture.gateway().respond(to: .get(link(share.recordName), accept: Accepting.vCard))
        #expect(response.body == card)
        #expect(response.header("Content-Disposition") == #"attachment; filename="contact.vcf"; filename*=UTF-8''contact.vcf"#)
    }
}
