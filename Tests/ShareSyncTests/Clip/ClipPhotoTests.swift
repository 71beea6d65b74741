import Foundation
import Testing
import TestSupport

extension ClipLifecycleTests {
    /// `clip open --photo FILE` for a card without a readable photo still
    /// shows the share and exits 0 (the share was fetched and committed),
    /// says on stderr that nothing was written, and `--json` has
    /// `photoWritten` false (issue "The CLI keeps every promise its docs
    /// make", item 3; `share get`'s half is in CLIShareAnswerTests).
    @Test func clipOpenOfACardWithoutAReadablePhotoStillShowsItAndSaysSo() throws {
        let bench = try ClipBench("photo")
        let broken = "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Pat Nophoto\r\nPHOTO;ENCODING=b;TYPE=JPEG:!!!not base64!!!\r\nEND:VCARD\r\n"
        let created = try bench.main(at: ClipBench.created).run("share", "create", "-", "--json", input: Array(broken.utf8))
            .checked("sharelog share create")
        let link = try #require(created.json["link"] as? String, "\(created.text)")
        let server = try bench.serve(at: Self.halfMinuteLater)
        let photo = bench.directory.appending("photo.jpg")

        let clip = bench.clip("clip", at: Self.halfMinuteLater)
        let opened = try clip.run("clip", "open", link, "--connect", server, "--photo", photo)
        #expect(opened.status == 0, "\(opened.error)")
        #expect(opened.text.contains("status:   live\n"), "\(opened.text)")
        #expect(opened.text.contains("name:     Pat Nophoto\n"), "\(opened.text)")
        #expect(opened.error == "sharelog: the card has no readable photo; nothing written to \(photo)\n")
        #expect(!FileManager.default.fileExists(atPath: photo))
        // Committed: the clip shows it again without the server.
        try bench.stopServer()
        let last = try clip.run("clip", "last")
        #expect(last.status == 0, "\(last.error)")
        #expect(last.text.contains("name:     Pat Nophoto\n"), "\(last.text)")

        let server2 = try bench.serve(at: Self.halfMinuteLater)
        let json = try bench.clip("clip-json", at: Self.halfMinuteLater).run("--json", "clip", "open", link, "--connect", server2, "--photo", photo)
        #expect(json.status == 0, "\(json.error)")
        #expect(json.json["photoWritten"] as? Bool == false, "\(json.text)")
        #expect(json.json["status"] as? String == "live", "\(json.text)")
        #expect(!FileManager.default.fileExists(atPath: photo))
    }
}
