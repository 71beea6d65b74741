#!/usr/bin/env python3
"""Reads a ShareLog store with Python's lmdb binding and prints it as JSON.

An independent reader: it knows only docs/FORMAT.md, not ShareLog's code, so
ReliabilityTests can check that the format document is precise enough for
another language. Needs Debian's python3-lmdb.

usage: read_store.py STORE_DIRECTORY
"""
import json
import struct
import sys
import uuid
import zlib

import lmdb

DATABASES = ["meta", "log", "eventIndex", "shares", "expiry", "recordCreates", "pendingRedactions"]
REASONS = {1: "ttl", 2: "revoked"}


def u64(data):
    return struct.unpack(">Q", data)[0]


def ident(data):
    return str(uuid.UUID(bytes=bytes(data)))


def decode_event(value):
    """One `log` value, per "Events (log values), format 1"."""
    value = bytes(value)
    if len(value) < 35:
        return {"corrupt": "shorter than 35 bytes"}
    version, kind, flags = value[0], value[1], value[2]
    origin, origin_sequence, n = ident(value[3:19]), u64(value[19:27]), struct.unpack(">I", value[27:31])[0]
    if len(value) != 35 + n:
        return {"corrupt": "length is not 35 + n"}
    checksum_valid = zlib.crc32(value[: 31 + n]) == struct.unpack(">I", value[31 + n:])[0]
    payload = value[31: 31 + n]
    event = {"version": version, "kind": kind, "flags": flags, "origin": origin,
             "originSequence": origin_sequence, "checksumValid": checksum_valid}
    if kind == 1:
        created_at, expires_at = struct.unpack(">qq", payload[16:32])
        event.update(kindName="shareCreated", recordName=ident(payload[:16]), createdAt=created_at,
                     expiresAt=expires_at, redacted=bool(flags & 1))
        if not flags & 1:
            event["vCard"] = payload[32:].decode("utf-8")
    elif kind == 2:
        at, reason = struct.unpack(">qB", payload[16:25])
        event.update(kindName="shareExpired", recordName=ident(payload[:16]), at=at, reason=REASONS.get(reason))
    else:
        event.update(kindName="unknown", payload=payload.hex())
    return event


def decode_share(value):
    """One `shares` value, per "Share states (shares values), format 1"."""
    value = bytes(value)
    version, flags = value[0], value[1]
    created_at, expires_at = struct.unpack(">qq", value[2:18])
    expired_at, reason = struct.unpack(">qB", value[42:51])
    share = {"version": version, "hasCreation": bool(flags & 1), "hasExpiry": bool(flags & 2),
             "hasVCard": bool(flags & 4)}
    if flags & 1:
        share.update(createdAt=created_at, expiresAt=expires_at,
                     creatingEvent=[ident(value[18:34]), u64(value[34:42])])
    if flags & 2:
        share.update(expiredAt=expired_at, reason=REASONS.get(reason),
                     expiringEvent=[ident(value[51:67]), u64(value[67:75])])
    if flags & 4:
        share["vCard"] = value[75:].decode("utf-8")
    return share


def main(path):
    env = lmdb.open(path, readonly=True, max_dbs=len(DATABASES), subdir=True)
    with env.begin() as txn:
        # Named databases are the keys of the main database.
        names = sorted(key.decode() for key, _ in txn.cursor())
        out = {"databases": {}, "meta": {}, "events": [], "eventIndex": {}, "shares": {}, "expiry": [],
               "recordCreates": [], "pendingRedactions": []}
        dbs = {}
        for name in names:
            dbs[name] = env.open_db(name.encode(), txn=txn, create=False)
            out["databases"][name] = txn.stat(dbs[name])["entries"]
        for key, value in txn.cursor(db=dbs["meta"]):
            name = key.decode("ascii")
            if name == "schema":
                out["meta"][name] = struct.unpack(">I", value)[0]
            elif name in ("replica", "epoch"):
                out["meta"][name] = ident(value)
            else:
                out["meta"][name] = u64(value)
        for key, value in txn.cursor(db=dbs["log"]):
            out["events"].append(dict(decode_event(value), sequence=u64(key)))
        for key, value in txn.cursor(db=dbs["eventIndex"]):
            out["eventIndex"]["%s/%d" % (ident(key[:16]), u64(key[16:]))] = u64(value)
        for key, value in txn.cursor(db=dbs["shares"]):
            out["shares"][ident(key)] = decode_share(value)
        for key, _ in txn.cursor(db=dbs["expiry"]):
            out["expiry"].append([u64(key[:8]), ident(key[8:])])
        for key, value in txn.cursor(db=dbs["recordCreates"]):
            out["recordCreates"].append([ident(key[:16]), u64(key[16:]), value[0]])
        for key, _ in txn.cursor(db=dbs["pendingRedactions"]):
            out["pendingRedactions"].append(u64(key))
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
