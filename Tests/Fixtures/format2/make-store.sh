#!/usr/bin/env bash
# Makes store/, the format-2 store the format-3 upgrade tests start from
# (issue 32), with the `sharelog` CLI of the last format-2 build (given as
# $1). Kept so the fixture can be reviewed; the store it made is committed
# as it came out (data.mdb only), and is never made again.
#
# The shares, with every time fixed by --now:
#   live        live, card without photo, 7 days from 2026-12-01T10:00Z
#   livePhoto   live, card with a 45,000-byte photo (on overflow pages)
#   sweptPhoto  a photo card for 1 hour, swept at 11:30 and compacted at 11:31
#   revoked     revoked at 10:30, compacted at 11:31
#   swept       made at 11:32 for 1 hour, swept at 12:40, not compacted
#   revokedLate made at 11:32, revoked at 11:40, not compacted
set -euo pipefail
cli=${1:?usage: make-store.sh PATH-TO-sharelog}
cd "$(dirname "$0")"
rm -rf store
card() { printf 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:%s;Fixture;;;\r\nFN:Fixture %s\r\nORG:Format Two Ltd\r\nEND:VCARD\r\n' "$1" "$1"; }
run() { "$cli" --store store --json "$@"; }
id() { python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }

run init --now 2026-12-01T10:00:00Z > /dev/null
live=$(card Live | run share create - --ttl 7d --now 2026-12-01T10:00:00Z | id)
livePhoto=$(run share create ../card-with-photo.vcf --ttl 7d --now 2026-12-01T10:00:00Z | id)
sweptPhoto=$(run share create ../card-with-photo.vcf --ttl 1h --now 2026-12-01T10:00:00Z | id)
revoked=$(card Revoked | run share create - --ttl 7d --now 2026-12-01T10:00:00Z | id)
run share revoke "$revoked" --now 2026-12-01T10:30:00Z > /dev/null
run sweep --now 2026-12-01T11:30:00Z > /dev/null
run compact --now 2026-12-01T11:31:00Z > /dev/null
swept=$(card Swept | run share create - --ttl 1h --now 2026-12-01T11:32:00Z | id)
revokedLate=$(card RevokedLate | run share create - --ttl 7d --now 2026-12-01T11:32:00Z | id)
run share revoke "$revokedLate" --now 2026-12-01T11:40:00Z > /dev/null
run sweep --now 2026-12-01T12:40:00Z > /dev/null
run stats --now 2026-12-01T13:00:00Z >&2
rm -f store/lock.mdb store/high-water store/commit.signal store/maintenance.lock
printf 'live=%s\nlivePhoto=%s\nsweptPhoto=%s\nrevoked=%s\nswept=%s\nrevokedLate=%s\n' \
    "$live" "$livePhoto" "$sweptPhoto" "$revoked" "$swept" "$revokedLate"
