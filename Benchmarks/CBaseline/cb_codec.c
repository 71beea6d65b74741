/* ShareLog's event and share-state encodings, byte for byte, so that a store
 * the LMDB baseline writes is one ShareLog opens and verifies. */

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
        if (payload < CB_CREATED_FIXED) return -1;
        memcpy(event->name, p, 16);
        event->created_at = (int64_t)cb_get_be64(p + 16);
        event->expires_at = (int64_t)cb_get_be64(p + 24);
        int redacted = bytes[2] & 1;
        if (redacted && payload != CB_CREATED_FIXED) return -1;
        event->vcard = redacted ? NULL : p + CB_CREATED_FIXED;
        event->vcard_size = redacted ? 0 : payload - CB_CREATED_FIXED;
    } else if (event->kind == CB_KIND_EXPIRED) {
        if (payload != CB_EXPIRED_PAYLOAD || (p[24] != CB_REASON_TTL && p[24] != CB_REASON_REVOKED)) return -1;
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
    return CB_STATE_HEADER + (state->vcard ? state->vcard_size : 0);
}

void cb_state_encode(const cb_state *state, uint8_t *out) {
    memset(out, 0, CB_STATE_HEADER);
    out[0] = 1;
    out[1] = (uint8_t)((state->has_creation ? 1 : 0) | (state->has_expiry ? 2 : 0) | (state->vcard ? 4 : 0));
    if (state->has_creation) {
        cb_put_be64(out + 2, (uint64_t)state->created_at);
        cb_put_be64(out + 10, (uint64_t)state->expires_at);
        memcpy(out + 18, state->creator, 16);
        cb_put_be64(out + 34, state->creator_sequence);
    }
    if (state->has_expiry) {
        cb_put_be64(out + 42, (uint64_t)state->expired_at);
        out[50] = state->reason;
        memcpy(out + 51, state->expirer, 16);
        cb_put_be64(out + 67, state->expirer_sequence);
    }
    if (state->vcard) memcpy(out + CB_STATE_HEADER, state->vcard, state->vcard_size);
}

int cb_state_decode(const uint8_t *bytes, size_t size, cb_state *state) {
    if (size < CB_STATE_HEADER || bytes[0] != 1) return -1;
    memset(state, 0, sizeof *state);
    uint8_t flags = bytes[1];
    if (flags & 1) {
        state->has_creation = 1;
        state->created_at = (int64_t)cb_get_be64(bytes + 2);
        state->expires_at = (int64_t)cb_get_be64(bytes + 10);
        memcpy(state->creator, bytes + 18, 16);
        state->creator_sequence = cb_get_be64(bytes + 34);
    }
    if (flags & 2) {
        if (bytes[50] != CB_REASON_TTL && bytes[50] != CB_REASON_REVOKED) return -1;
        state->has_expiry = 1;
        state->expired_at = (int64_t)cb_get_be64(bytes + 42);
        state->reason = bytes[50];
        memcpy(state->expirer, bytes + 51, 16);
        state->expirer_sequence = cb_get_be64(bytes + 67);
    }
    if (!state->has_creation && !state->has_expiry) return -1;
    if (flags & 4) {
        if (!state->has_creation || state->has_expiry) return -1;
        state->vcard = bytes + CB_STATE_HEADER;
        state->vcard_size = size - CB_STATE_HEADER;
    } else if (size != CB_STATE_HEADER) {
        return -1;
    }
    return 0;
}
