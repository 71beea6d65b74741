import Foundation
import Glibc

/// `backup.json`, beside a backup's `data.mdb`: what the backup holds and
/// until when it may be kept (docs/FORMAT.md "Backups").
///
/// One JSON object on one line, keys sorted; times are ISO 8601 in UTC
/// with milliseconds, ids lowercase UUIDs.
public struct BackupManifest: Hashable, Sendable, Codable {
    /// The manifest's format: 1. A reader refuses a larger one.
    public static let format = 1
    /// The file's name in a backup's directory.
    public static let fileName = "backup.json"

    /// This manifest's format.
    public let format: Int
    /// The time the backup was taken at: every share that had ended by
    /// then was expired in the copy, and its card is in no file of the
    /// backup.
    public let takenAt: Timestamp
    /// The replica id of the store backed up, as it was then.
    public let sourceReplicaID: ReplicaID
    /// The backup's own replica id, which no store writes under: a restore
    /// takes a new one again.
    public let replicaID: ReplicaID
    /// The store format of the backup's `data.mdb`.
    public let storeFormat: UInt32
    /// Log entries the backup holds.
    public let events: Int
    /// Shares live at `takenAt`: the backup holds each one's card.
    public let shares: Int
    /// The latest `expiresAt` of any share the backup holds a card of, or
    /// nil when it holds none. From then on every card in the backup is
    /// an ended share's, and a restore would wipe them all: delete the
    /// backup by then at the latest (docs/OPERATIONS.md "Backups").
    public let deleteBy: Timestamp?

    init(takenAt: Timestamp, sourceReplicaID: ReplicaID, replicaID: ReplicaID, events: Int, shares: Int, deleteBy: Timestamp?) {
        format = Self.format
        self.takenAt = takenAt
        self.sourceReplicaID = sourceReplicaID
        self.replicaID = replicaID
        storeFormat = Schema.version
        self.events = events
        self.shares = shares
        self.deleteBy = deleteBy
    }

    private enum CodingKeys: String, CodingKey {
        case format, takenAt, sourceReplicaID, replicaID, storeFormat, events, shares, deleteBy
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        func time(_ key: CodingKeys) throws -> Timestamp? {
            guard let text = try values.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let time = Timestamp(iso8601: text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: values, debugDescription: "not an ISO 8601 time")
            }
            return time
        }
        func replica(_ key: CodingKeys) throws -> ReplicaID {
            guard let id = ReplicaID(try values.decode(String.self, forKey: key)) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: values, debugDescription: "not a replica id")
            }
            return id
        }
        format = try values.decode(Int.self, forKey: .format)
        guard let takenAt = try time(.takenAt) else {
            throw DecodingError.keyNotFound(CodingKeys.takenAt, .init(codingPath: decoder.codingPath, debugDescription: "no takenAt"))
        }
        self.takenAt = takenAt
        sourceReplicaID = try replica(.sourceReplicaID)
        replicaID = try replica(.replicaID)
        storeFormat = try values.decode(UInt32.self, forKey: .storeFormat)
        events = try values.decode(Int.self, forKey: .events)
        shares = try values.decode(Int.self, forKey: .shares)
        // Present, if null: a manifest that leaves it out says nothing.
        guard values.contains(.deleteBy) else {
            throw DecodingError.keyNotFound(CodingKeys.deleteBy, .init(codingPath: decoder.codingPath, debugDescription: "no deleteBy"))
        }
        deleteBy = try time(.deleteBy)
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(format, forKey: .format)
        try values.encode(takenAt.iso8601, forKey: .takenAt)
        try values.encode("\(sourceReplicaID)", forKey: .sourceReplicaID)
        try values.encode("\(replicaID)", forKey: .replicaID)
        try values.encode(storeFormat, forKey: .storeFormat)
        try values.encode(events, forKey: .events)
        try values.encode(shares, forKey: .shares)
        if let deleteBy { try values.encode(deleteBy.iso8601, forKey: .deleteBy) } else { try values.encodeNil(forKey: .deleteBy) }
    }

    /// The manifest of the backup in `directory`.
    ///
    /// - Throws: `backupRefused` with `notABackup` when the directory holds
    ///   no `backup.json` or no `data.mdb`, `unsupportedManifest` for a
    ///   newer format, `damagedManifest` for anything else unreadable.
    public static func read(from directory: String) throws(ShareLogError) -> BackupManifest {
        let file = (directory as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: file),
              FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("data.mdb"))
        else { throw .backupRefused(.notABackup(path: directory)) }
        // The format first, so that a newer manifest is named as such even
        // when its other fields changed.
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let found = object["format"] as? Int else {
            throw .backupRefused(.damagedManifest(path: directory))
        }
        guard found <= format else { throw .backupRefused(.unsupportedManifest(path: directory, found: found, supported: format)) }
        guard let manifest = try? JSONDecoder().decode(BackupManifest.self, from: data), manifest.format == format else {
            throw .backupRefused(.damagedManifest(path: directory))
        }
        return manifest
    }

    /// Writes the manifest into `directory` as a new file (mode 0600), and
    /// syncs it. The caller syncs the directory.
    func write(into directory: String) throws(ShareLogError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do { bytes = Array(try encoder.encode(self)) + Array("\n".utf8) } catch {
            preconditionFailure("a manifest always encodes: \(error)")
        }
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        try StagingDirectory.writeNewFile(path, bytes: bytes)
    }
}
