#!/usr/bin/env python3
"""Reads a ShareLog store with Python's lmdb binding and prints it as JSON.

An independent reader: it knows only docs/FORMAT.md, not ShareLog's code, so
ReliabilityTests can check that the format document is precise enough for
another language. It reads store format 3, and formats 2 and 1 (the page's
closing sections) when `meta` `schema` says so, decodes every field of every database,
and enforces every rule of "What a reader must refuse": a store, event or
share-state format version it does not know, a `schema` that is not 4 bytes,
undefined flag bits on a known event kind, an event whose length is not
35 + n or whose CRC-32 differs, a shareCreated payload shorter than 32 bytes
or redacted with vCard bytes, a shareExpired payload that is not 25 bytes or
has an unknown reason, a share state with undefined or no flags, a TTL end
beside a creation, or a length its flags do not give, an expiry value that is
not 16 bytes, a cursors value that is not 32, a log key that is not 8 bytes
or is 0, a gap in the log, a key of the wrong length in any database, a
token of another value version, with undefined scope bits, a length its
name's does not give, or a name outside 1-64 of [A-Za-z0-9._-] or given
twice, and an idempotency entry whose value is not 81 bytes or of another
version.
Needs Debian's python3-lmdb.

usage: read_store.py STORE_DIRECTORY

Exit status: 0 with the JSON on standard output; 2 when the store breaks a
rule of docs/FORMAT.md (standard error says which entry and which rule);
1 when the directory cannot be opened as an LMDB environment.
"""
import json
import struct
import sys
import uuid
import zlib

import lmdb

# The databases of each store format, as FORMAT.md lists them.
DATABASES = {
    1: ["meta", "log", "eventIndex", "shares", "expiry", "recordCreates", "pendingRedactions"],
    2: ["meta", "log", "eventIndex", "shares", "expiry", "pendingRedactions", "cursors"],
    3: ["meta", "log", "eventIndex", "shares", "expiry", "pendingRedactions", "cursors", "tokens", "idempotency"],
}
STORE_FORMAT = 3
EVENT_FORMAT = 1
SHARE_CREATED, SHARE_EXPIRED = 1, 2
REDACTED = 0x01
REASONS = {1: "ttl", 2: "revoked"}
COUNTERS = ["origin-sequence", "live-count", "expired-count"]
# Format 2 meta integers that a store may lack: absent reads as None.
OPTIONAL_U64 = ["trimmed-through"]
# Format 2 share states: version, flags, then the parts their flags name.
STATE_FORMAT = 2
CREATION, REVOCATION, TTL_END, ARRIVED_REDACTED = 0x01, 0x02, 0x04, 0x08
CREATION_SIZE, END_SIZE = 48, 32
# Format 3 tokens: version, scopes, four times, the secret's SHA-256, the name.
TOKEN_FORMAT = 1
SCOPES = [(0x01, "upload"), (0x02, "revoke"), (0x04, "read")]
TOKEN_FIXED = 1 + 1 + 4 * 8 + 32 + 1
NAME_BYTES = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
NEVER = (1 << 63) - 1
# Format 3 idempotency entries.
IDEMPOTENCY_FORMAT = 1
IDEMPOTENCY_KEY, IDEMPOTENCY_VALUE = 8 + 32, 1 + 32 + 8 + 16 + 16 + 8
# Format 1 share states: a 75-byte header, then the vCard while live.
STATE_FORMAT_1 = 1
STATE_HEADER_1 = 75
STATE_FLAGS_1 = 0x07


class Refusal(Exception):
    """The store breaks a rule of docs/FORMAT.md; the message says where and which."""


def refuse(where, why):
    raise Refusal("%s: %s" % (where, why))


def u32(data):
    return struct.unpack(">I", data)[0]


def u64(data):
    return struct.unpack(">Q", data)[0]


def i64(data):
    return struct.unpack(">q", data)[0]


def ident(data):
    return str(uuid.UUID(bytes=bytes(data)))


def sized(where, data, size, what):
    if len(data) != size:
        refuse(where, "%s is %d bytes, not %d" % (what, len(data), size))
    return data


def text(where, data):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        refuse(where, "vCard is not UTF-8 (%s)" % error)


def decode_meta(values):
    """The `meta` database; `schema` first, since a newer one may change every layout."""
    schema = values.pop(b"schema", None)
    if schema is None:
        refuse("meta", "no schema key: not a ShareLog store")
    version = u32(sized("meta schema", schema, 4, "schema"))
    if version > STORE_FORMAT:
        refuse("meta schema", "store format %d is newer than this reader knows (%d)" % (version, STORE_FORMAT))
    if version not in DATABASES:
        refuse("meta schema", "store format %d is not one this reader knows (1, 2, 3)" % version)
    meta = {"schema": version}
    for name in ("replica", "epoch"):
        if name.encode() not in values:
            refuse("meta", "no %s key" % name)
        meta[name] = ident(sized("meta " + name, values.pop(name.encode()), 16, name))
    for name in COUNTERS:
        value = values.pop(name.encode(), None)
        meta[name] = 0 if value is None else u64(sized("meta " + name, value, 8, name))
    if version >= 2:
        for name in OPTIONAL_U64:
            value = values.pop(name.encode(), None)
            meta[name] = None if value is None else u64(sized("meta " + name, value, 8, name))
        value = values.pop(b"data-file", None)
        meta["data-file"] = None if value is None else sized("meta data-file", value, 28, "data-file").hex()
        value = values.pop(b"last-shown", None)
        if value is not None:
            meta["last-shown"] = ident(sized("meta last-shown", value, 16, "last-shown"))
        value = values.pop(b"handed-off", None)
        if value is not None:
            value = sized("meta handed-off", value, 24, "handed-off")
            meta["handed-off"] = {"to": ident(value[:16]), "at": i64(value[16:])}
    for key in values:
        refuse("meta", "key %r is not one format %d defines" % (key, version))
    return meta


def decode_event(where, value):
    """One `log` value, per "Events (log values), format 1"."""
    if len(value) < 35:
        refuse(where, "event of %d bytes is shorter than 35 bytes" % len(value))
    version, kind, flags = value[0], value[1], value[2]
    if version != EVENT_FORMAT:
        refuse(where, "event format version %d is not one this reader knows (%d)" % (version, EVENT_FORMAT))
    n = u32(value[27:31])
    if len(value) != 35 + n:
        refuse(where, "event is %d bytes, not 35 + n = %d" % (len(value), 35 + n))
    stored, computed = u32(value[31 + n:]), zlib.crc32(value[:31 + n])
    if stored != computed:
        refuse(where, "CRC-32 does not match the bytes (stored 0x%08x, computed 0x%08x)" % (stored, computed))
    payload = value[31:31 + n]
    event = {"version": version, "kind": kind, "flags": flags, "origin": ident(value[3:19]),
             "originSequence": u64(value[19:27])}
    if kind == SHARE_CREATED:
        if flags & ~REDACTED:
            refuse(where, "shareCreated sets flag bits 0x%02x that event format 1 does not define" % (flags & ~REDACTED))
        if n < 32:
            refuse(where, "shareCreated payload is %d bytes, shorter than 32" % n)
        redacted = bool(flags & REDACTED)
        if redacted and n != 32:
            refuse(where, "redacted shareCreated still carries %d vCard bytes" % (n - 32))
        event.update(kindName="shareCreated", recordName=ident(payload[:16]), createdAt=i64(payload[16:24]),
                     expiresAt=i64(payload[24:32]), redacted=redacted,
                     vCard=None if redacted else text(where, payload[32:]))
    elif kind == SHARE_EXPIRED:
        if flags:
            refuse(where, "shareExpired sets flag bits 0x%02x that event format 1 does not define" % flags)
        if n != 25:
            refuse(where, "shareExpired payload is %d bytes, not 25" % n)
        if payload[24] not in REASONS:
            refuse(where, "expiry reason %d is neither 1 (ttl) nor 2 (revoked)" % payload[24])
        event.update(kindName="shareExpired", recordName=ident(payload[:16]), at=i64(payload[16:24]),
                     reason=REASONS[payload[24]])
    else:
        event.update(kindName="unknown", payload=payload.hex())
    return event


def zeros(data):
    return not any(data)


def end_part(data):
    """A revocation or TTL end part: at, origin, origin counter."""
    return {"at": i64(data[:8]), "origin": ident(data[8:24]), "originSequence": u64(data[24:32])}


def decode_share(where, value):
    """One `shares` value, per "Share states (shares values)" (format 2)."""
    if len(value) < 2:
        refuse(where, "share state is %d bytes, shorter than its 2-byte header" % len(value))
    if value[0] != STATE_FORMAT:
        refuse(where, "share-state format version %d is not one this reader knows (%d)" % (value[0], STATE_FORMAT))
    flags = value[1]
    if flags & ~(CREATION | REVOCATION | TTL_END | ARRIVED_REDACTED):
        refuse(where, "share state sets flag bits 0x%02x that format 2 does not define"
               % (flags & ~(CREATION | REVOCATION | TTL_END | ARRIVED_REDACTED)))
    if not flags & (CREATION | REVOCATION | TTL_END):
        refuse(where, "share state has no part")
    if flags & TTL_END and flags & CREATION:
        refuse(where, "share state has a TTL end (bit 2) beside a creation (bit 0)")
    if flags & ARRIVED_REDACTED and (flags & (CREATION | REVOCATION)) != CREATION:
        refuse(where, "share state is marked arrived redacted (bit 3) without a creation or beside a revocation")
    size = 2 + (CREATION_SIZE if flags & CREATION else 0) + (END_SIZE if flags & REVOCATION else 0) \
        + (END_SIZE if flags & TTL_END else 0)
    if len(value) != size:
        refuse(where, "share state with flags 0x%02x is %d bytes, not %d" % (flags, len(value), size))
    share = {"version": value[0], "creation": None, "revocation": None, "ttlEnd": None,
             "arrivedRedacted": bool(flags & ARRIVED_REDACTED)}
    offset = 2
    if flags & CREATION:
        part = value[offset:offset + CREATION_SIZE]
        share["creation"] = {"createdAt": i64(part[0:8]), "expiresAt": i64(part[8:16]), "origin": ident(part[16:32]),
                             "originSequence": u64(part[32:40]), "position": u64(part[40:48])}
        offset += CREATION_SIZE
    if flags & REVOCATION:
        share["revocation"] = end_part(value[offset:offset + END_SIZE])
        offset += END_SIZE
    if flags & TTL_END:
        share["ttlEnd"] = end_part(value[offset:offset + END_SIZE])
    return share


def decode_share_1(where, value):
    """One format-1 `shares` value, per "Format 1, and the upgrade"."""
    if not value:
        refuse(where, "share state is empty")
    if value[0] != STATE_FORMAT_1:
        refuse(where, "share-state format version %d is not one this reader knows in format 1 (%d)"
               % (value[0], STATE_FORMAT_1))
    if len(value) < STATE_HEADER_1:
        refuse(where, "share state is %d bytes, shorter than its %d-byte header" % (len(value), STATE_HEADER_1))
    flags = value[1]
    if flags & ~STATE_FLAGS_1:
        refuse(where, "share state sets flag bits 0x%02x that format 1 does not define" % (flags & ~STATE_FLAGS_1))
    has_creation, has_expiry, has_card = bool(flags & 1), bool(flags & 2), bool(flags & 4)
    if not (has_creation or has_expiry):
        refuse(where, "share state has neither creation nor expiry")
    if has_card and (has_expiry or not has_creation):
        refuse(where, "share state holds a vCard but is not live (a creation and no expiry)")
    if not has_card and len(value) != STATE_HEADER_1:
        refuse(where, "share state without a vCard is %d bytes, not %d" % (len(value), STATE_HEADER_1))
    share = {"version": value[0], "creation": None, "expiry": None, "vCard": None}
    if has_creation:
        share["creation"] = {"createdAt": i64(value[2:10]), "expiresAt": i64(value[10:18]),
                             "origin": ident(value[18:34]), "originSequence": u64(value[34:42])}
    elif not zeros(value[2:42]):
        refuse(where, "share state without a creation has non-zero creation bytes")
    if has_expiry:
        if value[50] not in REASONS:
            refuse(where, "expiry reason %d is neither 1 (ttl) nor 2 (revoked)" % value[50])
        share["expiry"] = {"at": i64(value[42:50]), "reason": REASONS[value[50]],
                           "origin": ident(value[51:67]), "originSequence": u64(value[67:75])}
    elif not zeros(value[42:75]):
        refuse(where, "share state without an expiry has non-zero expiry bytes")
    if has_card:
        share["vCard"] = text(where, value[STATE_HEADER_1:])
    return share


def read_log(txn, db):
    """Every `log` entry, at positions 1, 2, 3, ... without a gap."""
    events = []
    for key, value in txn.cursor(db=db):
        position = u64(sized("log", bytes(key), 8, "log key"))
        if position == 0:
            refuse("log 0", "log key 0 is not a position: positions start at 1")
        if position != len(events) + 1:
            refuse("log %d" % position, "position follows %d: the log has a gap" % len(events))
        events.append(dict(decode_event("log %d" % position, bytes(value)), sequence=position))
    return events


def read_event_index(txn, db):
    entries = []
    for key, value in txn.cursor(db=db):
        key = sized("eventIndex", bytes(key), 24, "eventIndex key")
        where = "eventIndex %s/%d" % (ident(key[:16]), u64(key[16:]))
        entries.append({"origin": ident(key[:16]), "originSequence": u64(key[16:]),
                        "sequence": u64(sized(where, bytes(value), 8, "value"))})
    return entries


def read_pending_redactions(txn, db):
    positions = []
    for key, value in txn.cursor(db=db):
        position = u64(sized("pendingRedactions", bytes(key), 8, "pendingRedactions key"))
        sized("pendingRedactions %d" % position, bytes(value), 0, "value")
        positions.append(position)
    return positions


def read_format_2(txn, dbs, out):
    """The databases of format 2 that format 1 laid out differently or lacked."""
    for key, value in txn.cursor(db=dbs["shares"]):
        name = ident(sized("shares", bytes(key), 16, "shares key"))
        out["shares"].append(dict(decode_share("shares " + name, bytes(value)), recordName=name))
    for key, value in txn.cursor(db=dbs["expiry"]):
        key = sized("expiry", bytes(key), 24, "expiry key")
        value = sized("expiry " + ident(key[8:]), bytes(value), 16, "value")
        out["expiry"].append({"clampedExpiresAt": u64(key[:8]), "recordName": ident(key[8:]),
                              "position": u64(value[:8]), "expiresAt": i64(value[8:])})
    for key, value in txn.cursor(db=dbs["cursors"]):
        peer = ident(sized("cursors", bytes(key), 16, "cursors key"))
        value = sized("cursors " + peer, bytes(value), 32, "value")
        out["cursors"].append({"peer": peer, "epoch": ident(value[:16]), "position": u64(value[16:24]),
                               "lastSeen": i64(value[24:32])})


def decode_token(where, value):
    """One `tokens` value, per "Tokens" (format 3)."""
    if len(value) < TOKEN_FIXED:
        refuse(where, "token is %d bytes, shorter than its %d fixed bytes" % (len(value), TOKEN_FIXED))
    if value[0] != TOKEN_FORMAT:
        refuse(where, "token value version %d is not one this reader knows (%d)" % (value[0], TOKEN_FORMAT))
    scopes = value[1]
    if scopes & ~0x07:
        refuse(where, "token sets scope bits 0x%02x that format 3 does not define" % (scopes & ~0x07))
    length = value[TOKEN_FIXED - 1]
    if len(value) != TOKEN_FIXED + length:
        refuse(where, "token with a %d-byte name is %d bytes, not %d" % (length, len(value), TOKEN_FIXED + length))
    name = value[TOKEN_FIXED:]
    if not 1 <= len(name) <= 64 or any(byte not in NAME_BYTES for byte in name):
        refuse(where, "token name %r is not 1 to 64 of A-Z a-z 0-9 . _ -" % name)
    created, expires, revoked, used = (i64(value[2 + 8 * i:10 + 8 * i]) for i in range(4))
    return {"name": name.decode("ascii"), "scopes": [label for bit, label in SCOPES if scopes & bit],
            "createdAt": created, "expiresAt": None if expires == NEVER else expires,
            "revokedAt": None if revoked == 0 else revoked, "lastUsedAt": None if used == 0 else used,
            "secretHash": value[34:66].hex()}


def read_format_3(txn, dbs, out):
    """The databases format 3 added to format 2."""
    names = set()
    for key, value in txn.cursor(db=dbs["tokens"]):
        token_id = sized("tokens", bytes(key), 8, "tokens key").hex()
        token = dict(decode_token("tokens " + token_id, bytes(value)), id=token_id)
        if token["name"] in names:
            refuse("tokens " + token_id, "a second token is named %s" % token["name"])
        names.add(token["name"])
        out["tokens"].append(token)
    for key, value in txn.cursor(db=dbs["idempotency"]):
        key = sized("idempotency", bytes(key), IDEMPOTENCY_KEY, "idempotency key")
        where = "idempotency " + key.hex()
        value = sized(where, bytes(value), IDEMPOTENCY_VALUE, "value")
        if value[0] != IDEMPOTENCY_FORMAT:
            refuse(where, "idempotency value version %d is not one this reader knows (%d)" % (value[0], IDEMPOTENCY_FORMAT))
        out["idempotency"].append({"token": key[:8].hex(), "keyHash": key[8:].hex(), "fingerprint": value[1:33].hex(),
                                   "firstSeen": i64(value[33:41]), "recordName": ident(value[41:57]),
                                   "origin": ident(value[57:73]), "originSequence": u64(value[73:81])})


def read_format_1(txn, dbs, out):
    """The databases of format 1 that format 2 lays out differently or dropped."""
    for key, value in txn.cursor(db=dbs["shares"]):
        name = ident(sized("shares", bytes(key), 16, "shares key"))
        out["shares"].append(dict(decode_share_1("shares " + name, bytes(value)), recordName=name))
    for key, value in txn.cursor(db=dbs["expiry"]):
        key = sized("expiry", bytes(key), 24, "expiry key")
        sized("expiry " + ident(key[8:]), bytes(value), 0, "value")
        out["expiry"].append({"expiresAt": u64(key[:8]), "recordName": ident(key[8:])})
    for key, value in txn.cursor(db=dbs["recordCreates"]):
        key = sized("recordCreates", bytes(key), 24, "recordCreates key")
        where = "recordCreates %s/%d" % (ident(key[:16]), u64(key[16:]))
        held = sized(where, bytes(value), 1, "value")[0]
        if held not in (0, 1):
            refuse(where, "value %d is neither 0 nor 1" % held)
        out["recordCreates"].append({"recordName": ident(key[:16]), "sequence": u64(key[16:]),
                                     "holdsVCard": held == 1})


def read(env):
    with env.begin() as txn:
        # Named databases are the keys of the main database.
        names = sorted(bytes(key).decode() for key, _ in txn.cursor())
        if "meta" not in names:
            refuse("store", "database meta is missing")
        meta_db = env.open_db(b"meta", txn=txn, create=False)
        meta = decode_meta({bytes(key): bytes(value) for key, value in txn.cursor(db=meta_db)})
        databases = DATABASES[meta["schema"]]
        for name in databases:
            if name not in names:
                refuse("store", "database %s is missing" % name)
        dbs = {name: env.open_db(name.encode(), txn=txn, create=False) for name in databases}
        out = {"databases": {name: txn.stat(dbs[name])["entries"] for name in databases}, "meta": meta,
               "events": read_log(txn, dbs["log"]), "eventIndex": read_event_index(txn, dbs["eventIndex"]),
               "shares": [], "expiry": [], "pendingRedactions": read_pending_redactions(txn, dbs["pendingRedactions"])}
        if meta["schema"] == 1:
            out["recordCreates"] = []
            read_format_1(txn, dbs, out)
        else:
            out["cursors"] = []
            read_format_2(txn, dbs, out)
        if meta["schema"] >= 3:
            out["tokens"], out["idempotency"] = [], []
            read_format_3(txn, dbs, out)
    return out


def main(path):
    try:
        env = lmdb.open(path, readonly=True, max_dbs=len(DATABASES[STORE_FORMAT]) + 1, subdir=True)
    except lmdb.Error as error:
        sys.stderr.write("read_store.py: cannot open %s as an LMDB environment: %s\n" % (path, error))
        return 1
    try:
        out = read(env)
    except Refusal as refusal:
        sys.stderr.write("read_store.py: refused %s: %s\n" % (path, refusal))
        return 2
    finally:
        env.close()
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
