#!/usr/bin/env python3
"""Makes NATS NKeys and signs NATS JWTs, for tests that have no `nsc`.

The Ed25519 keys and signatures come from Debian's python3-cryptography;
this file does only the encodings around them, as nats-io/nkeys and
nats-io/jwt v2 define them:

- an NKey public key is base32 (RFC 4648, no padding) of a prefix byte
  (operator 14<<3 'O', account 0 'A', user 20<<3 'U'), the 32-byte Ed25519
  public key, and the CRC-16/XMODEM (poly 0x1021, init 0) of those 33 bytes,
  little-endian;
- a seed is base32 of two prefix bytes (the seed prefix 18<<3 'S' with the
  top 3 bits of the key's prefix, then its low 5 bits shifted left by 3),
  the 32-byte Ed25519 private seed, and the CRC-16 of those 34 bytes;
- a JWT is base64url (no padding) of the header
  {"typ":"JWT","alg":"ed25519-nkey"}, a dot, base64url of the claims, a dot,
  and base64url of the issuer's Ed25519 signature of the two parts joined by
  that dot. The claims get "iss" (the issuer's public key), "iat" (this
  machine's real clock, in seconds) and "jti" (base32 without padding of the
  SHA-512/256 of the standard claims, jti left out, as compact JSON in
  nats-io/jwt's field order).

usage:
  nats_credentials.py keys KIND [KIND ...]
      KIND is operator, account or user. Prints one line for each KIND:
      a fresh key pair's seed, a space, and its public key.
  nats_credentials.py sign SEED
      Reads a JSON object of claims on standard input ("sub", "name", "nats"
      and any others but "iss", "iat" and "jti"), signs it with SEED's key
      and prints the JWT.

Exit status: 0 with the output on standard output; 2 for a wrong command
line, a seed that does not decode or claims that are not a JSON object
(standard error says which).
"""
import base64
import json
import sys
import time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

PREFIXES = {"operator": 14 << 3, "account": 0, "user": 20 << 3}
SEED_PREFIX = 18 << 3
HEADER = {"typ": "JWT", "alg": "ed25519-nkey"}
# nats-io/jwt's ClaimsData, in the order Go marshals its fields.
STANDARD_CLAIMS = ["aud", "exp", "jti", "iat", "iss", "name", "nbf", "sub"]


def crc16(data):
    """CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def base32(data):
    return base64.b32encode(data).decode("ascii").rstrip("=")


def with_checksum(raw):
    return base32(raw + crc16(raw).to_bytes(2, "little"))


def public_key(prefix, key):
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return with_checksum(bytes([prefix]) + raw)


def seed(prefix, key):
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    head = bytes([SEED_PREFIX | (prefix >> 5), (prefix & 31) << 3])
    return with_checksum(head + raw)


def decode_seed(text):
    """The key-type prefix and Ed25519 private key of an encoded seed."""
    try:
        raw = base64.b32decode(text + "=" * (-len(text) % 8))
    except ValueError as error:
        raise ValueError(f"seed is not base32: {error}") from error
    if len(raw) != 36 or crc16(raw[:-2]) != int.from_bytes(raw[-2:], "little"):
        raise ValueError("seed has the wrong length or checksum")
    if raw[0] & 0xF8 != SEED_PREFIX:
        raise ValueError("not a seed: its first byte lacks the seed prefix")
    prefix = ((raw[0] & 7) << 5) | (raw[1] >> 3)
    if prefix not in PREFIXES.values():
        raise ValueError(f"seed of an unknown key type (prefix byte {prefix})")
    return prefix, ed25519.Ed25519PrivateKey.from_private_bytes(raw[2:34])


def base64url(data):
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def compact(value):
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def jti(claims):
    digest = hashes.Hash(hashes.SHA512_256())
    digest.update(compact({name: claims[name] for name in STANDARD_CLAIMS if name in claims and name != "jti"}))
    return base32(digest.finalize())


def sign(seed_text, claims):
    prefix, key = decode_seed(seed_text)
    if not isinstance(claims, dict):
        raise ValueError("the claims are not a JSON object")
    for reserved in ("iss", "iat", "jti"):
        if reserved in claims:
            raise ValueError(f'the claims must not carry "{reserved}": signing sets it')
    claims = dict(claims, iat=int(time.time()), iss=public_key(prefix, key))
    claims = dict(claims, jti=jti(claims))
    signed = base64url(compact(HEADER)) + "." + base64url(compact(claims))
    return signed + "." + base64url(key.sign(signed.encode("ascii")))


def main(arguments):
    if len(arguments) >= 2 and arguments[0] == "keys" and all(kind in PREFIXES for kind in arguments[1:]):
        for kind in arguments[1:]:
            key = ed25519.Ed25519PrivateKey.generate()
            print(seed(PREFIXES[kind], key), public_key(PREFIXES[kind], key))
        return 0
    if len(arguments) == 2 and arguments[0] == "sign":
        try:
            print(sign(arguments[1], json.load(sys.stdin)))
        except ValueError as error:
            print(f"nats_credentials.py: {error}", file=sys.stderr)
            return 2
        return 0
    print(__doc__.split("usage:")[1].split("Exit status")[0].rstrip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
