#!/usr/bin/env python3
"""Reads a ShareLog store with Python's lmdb binding and prints it as JSON.

An independent reader: it knows only docs/FORMAT.md, not ShareLog's code, so
ReliabilityTests can check that the format document is precise enough for
another language. It decodes every field of every database and enforces the
document's refusal rules: a store, event or share-state format version it does
not know, undefined flag bits on a known event kind, an event whose length is
not 35 + n or whose CRC-32 differs, and a share state of the wrong size.
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

DATABASES = ["meta", "log", "eventIndex", "shares", "expiry", "recordCreates", "pendingRedactions"]
STORE_FORMAT = 1
EVENT_FORMAT = 1
STATE_FORMAT = 1
SHARE_CREATED, SHARE_EXPIRED = 1, 2
REDACTED = 0x01
REASONS = {1: "ttl", 2: "revoked"}
STATE_HEADER = 75
STATE_FLAGS = 0x07
COUNTERS = ["origin-sequence", "live-count", "expired-count"]


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


def decode_meta(txn, db):
    """The `meta` database; `schema` first, since a newer one may change every layout."""
    values = {bytes(key): bytes(value) for key, value in txn.cursor(db=db)}
    schema = values.pop(b"schema", None)
    if schema is None:
        refuse("meta", "no schema key: not a ShareLog store")
    version = u32(sized("meta schema", schema, 4, "schema"))
    if version > STORE_FORMAT:
        refuse("meta schema", "store format %d is newer than this reader knows (%d)" % (version, STORE_FORMAT))
    if version != STORE_FORMAT:
        refuse("meta schema", "store format %d is not one this reader knows (%d)" % (version, STORE_FORMAT))
    meta = {"schema": version}
    for name in ("replica", "epoch"):
        if name.encode() not in values:
            refuse("meta", "no %s key" % name)
        meta[name] = ident(sized("meta " + name, values.pop(name.encode()), 16, name))
    for name in COUNTERS:
        value = values.pop(name.encode(), None)
        meta[name] = 0 if value is None else u64(sized("meta " + name, value, 8, name))
    for key in values:
        refuse("meta", "key %r is not one format 1 defines" % key)
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
            refuse(where, "shareCreated sets flag bits 0x%02x that format 1 does not define" % (flags & ~REDACTED))
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
            refuse(where, "shareExpired sets flag bits 0x%02x that format 1 does not define" % flags)
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


def decode_share(where, value):
    """One `shares` value, per "Share states (shares values), format 1"."""
    if not value:
        refuse(where, "share state is empty")
    if value[0] != STATE_FORMAT:
        refuse(where, "share-state format version %d is not one this reader knows (%d)" % (value[0], STATE_FORMAT))
    if len(value) < STATE_HEADER:
        refuse(where, "share state is %d bytes, shorter than its %d-byte header" % (len(value), STATE_HEADER))
    flags = value[1]
    if flags & ~STATE_FLAGS:
        refuse(where, "share state sets flag bits 0x%02x that format 1 does not define" % (flags & ~STATE_FLAGS))
    has_creation, has_expiry, has_card = bool(flags & 1), bool(flags & 2), bool(flags & 4)
    if not (has_creation or has_expiry):
        refuse(where, "share state has neither creation nor expiry")
    if has_card and (has_expiry or not has_creation):
        refuse(where, "share state holds a vCard but is not live (a creation and no expiry)")
    if not has_card and len(value) != STATE_HEADER:
        refuse(where, "share state without a vCard is %d bytes, not %d" % (len(value), STATE_HEADER))
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
        share["vCard"] = text(where, value[STATE_HEADER:])
    return share


def read(env):
    with env.begin() as txn:
        # Named databases are the keys of the main database.
        names = sorted(bytes(key).decode() for key, _ in txn.cursor())
        for name in DATABASES:
            if name not in names:
                refuse("store", "database %s is missing" % name)
        dbs = {name: env.open_db(name.encode(), txn=txn, create=False) for name in DATABASES}
        out = {"databases": {name: txn.stat(dbs[name])["entries"] for name in DATABASES},
               "meta": decode_meta(txn, dbs["meta"]), "events": [], "eventIndex": [], "shares": [],
               "expiry": [], "recordCreates": [], "pendingRedactions": []}
        for key, value in txn.cursor(db=dbs["log"]):
            sequence = u64(sized("log", bytes(key), 8, "log key"))
            if sequence != len(out["events"]) + 1:
                refuse("log %d" % sequence, "sequence follows %d: the log has a gap" % len(out["events"]))
            out["events"].append(dict(decode_event("log %d" % sequence, bytes(value)), sequence=sequence))
        for key, value in txn.cursor(db=dbs["eventIndex"]):
            key = sized("eventIndex", bytes(key), 24, "eventIndex key")
            where = "eventIndex %s/%d" % (ident(key[:16]), u64(key[16:]))
            out["eventIndex"].append({"origin": ident(key[:16]), "originSequence": u64(key[16:]),
                                      "sequence": u64(sized(where, bytes(value), 8, "value"))})
        for key, value in txn.cursor(db=dbs["shares"]):
            name = ident(sized("shares", bytes(key), 16, "shares key"))
            out["shares"].append(dict(decode_share("shares " + name, bytes(value)), recordName=name))
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
        for key, value in txn.cursor(db=dbs["pendingRedactions"]):
            sequence = u64(sized("pendingRedactions", bytes(key), 8, "pendingRedactions key"))
            sized("pendingRedactions %d" % sequence, bytes(value), 0, "value")
            out["pendingRedactions"].append(sequence)
    return out


def main(path):
    try:
        env = lmdb.open(path, readonly=True, max_dbs=len(DATABASES), subdir=True)
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
