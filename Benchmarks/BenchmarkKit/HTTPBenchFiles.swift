import Foundation
import ShareLog
import TestSupport

/// The files of the HTTP workload, in its directory: nginx's card files,
/// the id list `wrk` reads, its Lua script, and a throwaway certificate.
struct HTTPBenchFiles {
    /// One entry of the id list: a share by card index, or an id that
    /// exists nowhere (16 random bytes, a version 4 UUID's bits set).
    enum Pick {
        case live(Int)
        case unknown([UInt8])
    }

    let directory: String
    /// nginx's root: one `ID.vcf` file per share, the card's bytes.
    let cards: String
    let idList: String
    let script: String
    let certificate: String
    let key: String
    /// The ids of `idList`, in order: every share once, shuffled, and after
    /// every 9 of them one unknown id.
    let picks: [Pick]

    /// Writes every file for the shares `names` (card `i` of `deck` is
    /// share `i`), then syncs them to disk, so no write-back of them lands
    /// in a measurement.
    init(directory: String, names: [RecordName], deck: CardDeck) throws {
        self.directory = directory
        cards = (directory as NSString).appendingPathComponent("cards")
        idList = (directory as NSString).appendingPathComponent("ids.txt")
        script = (directory as NSString).appendingPathComponent("fetch.lua")
        certificate = (directory as NSString).appendingPathComponent("cert.pem")
        key = (directory as NSString).appendingPathComponent("key.pem")
        try FileManager.default.createDirectory(atPath: cards, withIntermediateDirectories: true)

        var random = SeededGenerator(seed: 26)
        var picks: [Pick] = []
        for (position, index) in names.indices.shuffled(using: &random).enumerated() {
            picks.append(.live(index))
            if position % 9 == 8 {
                var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes[6] = bytes[6] & 0x0F | 0x40
                bytes[8] = bytes[8] & 0x3F | 0x80
                picks.append(.unknown(bytes))
            }
        }
        self.picks = picks
        let ids = picks.map { pick -> String in
            switch pick {
            case .live(let index): names[index].description
            case .unknown(let bytes): Self.name(bytes).description
            }
        }
        try (ids.joined(separator: "\n") + "\n").write(toFile: idList, atomically: true, encoding: .utf8)
        let flags = picks.map { if case .unknown = $0 { "1" } else { "0" } }
        try (flags.joined(separator: "\n") + "\n").write(toFile: idList + ".unknown", atomically: true, encoding: .utf8)
        try WrkRun.script.write(toFile: script, atomically: true, encoding: .utf8)

        for (index, name) in names.enumerated() {
            let path = (cards as NSString).appendingPathComponent("\(name.description).vcf")
            guard FileManager.default.createFile(atPath: path, contents: Data(deck.card(index))) else {
                throw BenchError.io("writing \(path) failed")
            }
        }
        // One sync(2) for them all: an fsync per file costs a disk flush each.
        sync()

        // An ECDSA P-256 certificate for 127.0.0.1, valid for two days: the
        // key most new certificates carry. Both servers use these files.
        try ProcessRunner.check("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ])
    }

    /// The id of `bytes`, as a record name.
    static func name(_ bytes: [UInt8]) -> RecordName {
        RecordName(uuid: bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
    }

    /// The unknown ids among `picks`.
    var unknownCount: Int { picks.filter { if case .unknown = $0 { true } else { false } }.count }

    /// The id list for Redis, whose keys are its own names of the same
    /// cards (`redisNames`, 16 bytes per card index): 16 bytes per pick.
    func redisNames(_ redisNames: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 * picks.count)
        for pick in picks {
            switch pick {
            case .live(let index): out += redisNames[16 * index ..< 16 * index + 16]
            case .unknown(let bytes): out += bytes
            }
        }
        return out
    }
}
