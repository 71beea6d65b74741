/* The event and share-state encodings of docs/FORMAT.md (format 2), byte for
 * byte, so that a store the LMDB baseline writes is one ShareLog opens and
 * verifies. */

#include <string.h>
#include <zlib.h>

#include "cb_internal.h"

static uint32_t crc32_of(const uint8_t *bytes, size_t size) {
    return (uint32_t)crc32_z(0, bytes, size);
}

static size_t payload_size(const cb_event *event) {
    return event->kind == CB_KIND_CREATED ? CB_CREATED_FIXED + (event->vcard ? event->vcard_size : 0)
                                          : CB_EXPIRED_PAYLOAD;
}

size_t cb_event_size(const cb_event *event) {
    return CB_EVENT_HEADER + payload_size(event) + CB_EVENT_TRAILER;
}

void cb_event_encode(const cb_event *event, uint8_t *out) {
    size_t payload = payload_size(event);
    out[0] = 1;
    out[1] = event->kind;
    out[2] = (event->kind == CB_KIND_CREATED && event->vcard == NULL) ? 1 : 0;
    memcpy(out + 3, event->origin, 16);
    cb_put_be64(out + 19, event->sequence);
    cb_put_be32(out + 27, (uint32_t)payload);
    uint8_t *p = out + CB_EVENT_HEADER;
    memcpy(p, event->name, 16);
    if (event->kind == CB_KIND_CREATED) {
        cb_put_be64(p + 16, (uint64_t)event->created_at);
        cb_put_be64(p + 24, (uint64_t)event->expires_at);
        if (event->vcard) memcpy(p + 32, event->vcard, event->vcard_size);
    } else {
        cb_put_be64(p + 16, (uint64_t)event->at);
        p[24] = event->reason;
    }
    cb_put_be32(out + CB_EVENT_HEADER + payload, crc32_of(out, CB_EVENT_HEADER + payload));
}

int cb_event_decode(const uint8_t *bytes, size_t size, cb_event *event) {
    if (size < CB_EVENT_HEADER + CB_EVENT_TRAILER || bytes[0] != 1) return -1;
    size_t payload = cb_get_be32(bytes + 27);
    if (payload != size - CB_EVENT_HEADER - CB_EVENT_TRAILER) return -1;
    if (crc32_of(bytes, CB_EVENT_HEADER + payload) != cb_get_be32(bytes + CB_EVENT_HEADER + payload)) return -1;
    memset(event, 0, sizeof *event);
    event->kind = bytes[1];
    memcpy(event->origin, bytes + 3, 16);
    event->sequence = cb_get_be64(bytes + 19);
    const uint8_t *p = bytes + CB_EVENT_HEADER;
    if (event->kind == CB_KIND_CREATED) {
        if (payload < CB_CREATED_FIXED || (bytes[2] & ~1)) return -1;
        memcpy(event->name, p, 16);
        event->created_at = (int64_t)cb_get_be64(p + 16);
        event->expires_at = (int64_t)cb_get_be64(p + 24);
        int redacted = bytes[2] & 1;
        if (redacted && payload != CB_CREATED_FIXED) return -1;
        event->vcard = redacted ? NULL : p + CB_CREATED_FIXED;
        event->vcard_size = redacted ? 0 : payload - CB_CREATED_FIXED;
    } else if (event->kind == CB_KIND_EXPIRED) {
        if (payload != CB_EXPIRED_PAYLOAD || bytes[2] != 0 || (p[24] != CB_REASON_TTL && p[24] != CB_REASON_REVOKED)) return -1;
        memcpy(event->name, p, 16);
        event->at = (int64_t)cb_get_be64(p + 16);
        event->reason = p[24];
    }
    return 0;
}

int cb_event_id_compare(const uint8_t origin_a[16], uint64_t sequence_a,
                        const uint8_t origin_b[16], uint64_t sequence_b) {
    int order = memcmp(origin_a, origin_b, 16);
    if (order != 0) return order;
    return sequence_a < sequence_b ? -1 : sequence_a > sequence_b ? 1 : 0;
}

size_t cb_state_size(const cb_state *state) {
    return 2 + (state->has_creation ? CB_STATE_CREATION : 0) + (state->has_revocation ? CB_STATE_END : 0) +
           (state->has_ttl_end && !state->has_creation ? CB_STATE_END : 0);
}

static uint8_t *put_end(uint8_t *out, const cb_end *end) {
    cb_put_be64(out, (uint64_t)end->at);
    memcpy(out + 8, end->origin, 16);
    cb_put_be64(out + 24, end->sequence);
    return out + CB_STATE_END;
}

static const uint8_t *get_end(const uint8_t *in, cb_end *end) {
    end->at = (int64_t)cb_get_be64(in);
    memcpy(end->origin, in + 8, 16);
    end->sequence = cb_get_be64(in + 24);
    return in + CB_STATE_END;
}

void cb_state_encode(const cb_state *state, uint8_t *out) {
    int ttl_end = state->has_ttl_end && !state->has_creation;
    out[0] = CB_STATE_FORMAT;
    out[1] = (uint8_t)((state->has_creation ? 1 : 0) | (state->has_revocation ? 2 : 0) | (ttl_end ? 4 : 0));
    uint8_t *p = out + 2;
    if (state->has_creation) {
        cb_put_be64(p, (uint64_t)state->created_at);
        cb_put_be64(p + 8, (uint64_t)state->expires_at);
        memcpy(p + 16, state->creator, 16);
        cb_put_be64(p + 32, state->creator_sequence);
        cb_put_be64(p + 40, state->position);
        p += CB_STATE_CREATION;
    }
    if (state->has_revocation) p = put_end(p, &state->revocation);
    if (ttl_end) put_end(p, &state->ttl_end);
}

int cb_state_decode(const uint8_t *bytes, size_t size, cb_state *state) {
    if (size < 2 || bytes[0] != CB_STATE_FORMAT) return -1;
    uint8_t flags = bytes[1];
    if ((flags & ~7) || flags == 0 || (flags & 5) == 5) return -1;
    memset(state, 0, sizeof *state);
    state->has_creation = flags & 1;
    state->has_revocation = (flags & 2) != 0;
    state->has_ttl_end = (flags & 4) != 0;
    if (size != cb_state_size(state)) return -1;
    const uint8_t *p = bytes + 2;
    if (state->has_creation) {
        state->created_at = (int64_t)cb_get_be64(p);
        state->expires_at = (int64_t)cb_get_be64(p + 8);
        memcpy(state->creator, p + 16, 16);
        state->creator_sequence = cb_get_be64(p + 32);
        state->position = cb_get_be64(p + 40);
        p += CB_STATE_CREATION;
    }
    if (state->has_revocation) p = get_end(p, &state->revocation);
    if (state->has_ttl_end) get_end(p, &state->ttl_end);
    return 0;
}

int cb_end_precedes(const cb_end *a, const cb_end *b) {
    if (a->at != b->at) return a->at < b->at;
    return cb_event_id_compare(a->origin, a->sequence, b->origin, b->sequence) < 0;
}
