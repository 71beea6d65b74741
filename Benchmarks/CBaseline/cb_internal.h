#ifndef SHARELOG_CB_INTERNAL_H
#define SHARELOG_CB_INTERNAL_H

/* Helpers shared by the C baselines: clocks, big-endian integers, random
 * record names, and ShareLog's event and share-state encodings. */

#include <stddef.h>
#include <stdint.h>

#include "cbaseline.h"

/* Reads `bytes` where the optimiser cannot see, so a copy made only to be
 * handed to the caller is not elided. */
void cb_consume(const uint8_t *bytes, size_t size);

/* Monotonic nanoseconds. */
uint64_t cb_now_ns(void);

/* Writes 16 random bytes shaped as a UUID v4, as Foundation's UUID(). */
int cb_random_name(uint8_t name[16]);

static inline void cb_put_be64(uint8_t *out, uint64_t value) {
    for (int i = 7; i >= 0; i--) { out[i] = (uint8_t)value; value >>= 8; }
}

static inline void cb_put_be32(uint8_t *out, uint32_t value) {
    for (int i = 3; i >= 0; i--) { out[i] = (uint8_t)value; value >>= 8; }
}

static inline uint64_t cb_get_be64(const uint8_t *in) {
    uint64_t value = 0;
    for (int i = 0; i < 8; i++) value = (value << 8) | in[i];
    return value;
}

static inline uint32_t cb_get_be32(const uint8_t *in) {
    return ((uint32_t)in[0] << 24) | ((uint32_t)in[1] << 16) | ((uint32_t)in[2] << 8) | in[3];
}

/* Card k of `cards`; its size in *size. */
static inline const uint8_t *cb_card(const cb_cards *cards, size_t k, size_t *size) {
    size_t j = (cards->first + k) % cards->distinct;
    *size = cards->offsets[j + 1] - cards->offsets[j];
    return cards->bytes + cards->offsets[j];
}

/* ---- events (Sources/ShareLog/Events/EventCodec.swift) ---------------- */

enum { CB_KIND_CREATED = 1, CB_KIND_EXPIRED = 2 };
enum { CB_REASON_TTL = 1, CB_REASON_REVOKED = 2 };
enum { CB_EVENT_HEADER = 31, CB_EVENT_TRAILER = 4 };
enum { CB_CREATED_FIXED = 32, CB_EXPIRED_PAYLOAD = 25 };

/* A decoded event. Pointers point into the encoded bytes. */
typedef struct {
    uint8_t origin[16];
    uint64_t sequence;
    uint8_t kind;
    uint8_t name[16];
    int64_t created_at; /* created */
    int64_t expires_at; /* created */
    int64_t at;         /* expired */
    uint8_t reason;     /* expired */
    const uint8_t *vcard; /* created; NULL when redacted */
    size_t vcard_size;
} cb_event;

/* The encoded size of `event`. */
size_t cb_event_size(const cb_event *event);
/* Encodes `event` into out[cb_event_size(event)], CRC-32 included. */
void cb_event_encode(const cb_event *event, uint8_t *out);
/* Decodes `size` bytes; 0 when they are a valid event. */
int cb_event_decode(const uint8_t *bytes, size_t size, cb_event *event);
/* Orders event ids as EventID.<: origin bytes, then sequence. */
int cb_event_id_compare(const uint8_t origin_a[16], uint64_t sequence_a,
                        const uint8_t origin_b[16], uint64_t sequence_b);

/* ---- share states (docs/FORMAT.md, "Share states", format 2) --------- */

enum { CB_STATE_FORMAT = 2, CB_STATE_CREATION = 48, CB_STATE_END = 32 };
enum { CB_STATE_MAX = 2 + CB_STATE_CREATION + CB_STATE_END + CB_STATE_END };

/* An end of a share: a revocation, or a TTL end known without a creation. */
typedef struct {
    int64_t at;
    uint8_t origin[16];
    uint64_t sequence;
} cb_end;

/* A decoded share state. The card is never here: it is in the log entry at
 * `position`. */
typedef struct {
    int has_creation;
    int64_t created_at;
    int64_t expires_at;
    uint8_t creator[16];
    uint64_t creator_sequence;
    uint64_t position; /* of the winning shareCreated */
    int has_revocation;
    cb_end revocation;
    int has_ttl_end; /* only without a creation */
    cb_end ttl_end;
} cb_state;

/* The encoded size of `state`: 2 + 48 + 32 + 32 at most, 50 for a share
 * with a creation only. */
size_t cb_state_size(const cb_state *state);
/* Encodes `state` into out[cb_state_size(state)]. */
void cb_state_encode(const cb_state *state, uint8_t *out);
/* Decodes a stored state; 0 when it keeps every rule of the format. */
int cb_state_decode(const uint8_t *bytes, size_t size, cb_state *state);
/* Whether end `a` comes before end `b`: the earlier `at`, then the smaller
 * event id. */
int cb_end_precedes(const cb_end *a, const cb_end *b);

/* ---- threads ------------------------------------------------------------ */

/* Runs body(context_of(i)) on `threads` threads (inline when 1) and joins
 * them. Returns 0, or the first non-zero result. */
int cb_run_threads(int threads, int (*body)(void *), void *contexts, size_t context_size);

#endif
