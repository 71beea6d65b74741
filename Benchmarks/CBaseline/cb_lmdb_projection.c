/* The fold of docs/FORMAT.md format 2 over raw LMDB (ShareProjection.swift)
 * and the append of this replica's own events (LocalLog.swift): the
 * share state as a function of the events logged for its record name, the
 * expiry index of pending shares, the redaction queue and the counters. */

#include <string.h>

#include "cb_lmdb_internal.h"

static MDB_val val(const void *data, size_t size) {
    return (MDB_val){.mv_size = size, .mv_data = (void *)data};
}

void cb_expiry_key(uint8_t key[24], int64_t expires_at, const uint8_t name[16]) {
    cb_put_be64(key, expires_at < 0 ? 0 : (uint64_t)expires_at);
    memcpy(key + 8, name, 16);
}

void cb_expiry_value(uint8_t value[16], uint64_t position, int64_t expires_at) {
    cb_put_be64(value, position);
    cb_put_be64(value + 8, (uint64_t)expires_at);
}

int cb_counter(MDB_txn *txn, const cb_schema *schema, const char *key, uint64_t *value) {
    MDB_val k = val(key, strlen(key)), v;
    int rc = mdb_get(txn, schema->meta, &k, &v);
    if (rc == MDB_NOTFOUND) {
        *value = 0;
        return 0;
    }
    if (rc != 0) return rc;
    if (v.mv_size != 8) return MDB_CORRUPTED;
    *value = cb_get_be64(v.mv_data);
    return 0;
}

static int put_counter(MDB_txn *txn, const cb_schema *schema, const char *key, uint64_t value) {
    uint8_t bytes[8];
    cb_put_be64(bytes, value);
    MDB_val k = val(key, strlen(key)), v = val(bytes, 8);
    return mdb_put(txn, schema->meta, &k, &v, 0);
}

static int adjust_counter(MDB_txn *txn, const cb_schema *schema, const char *key, int64_t delta) {
    if (delta == 0) return 0;
    uint64_t current;
    int rc = cb_counter(txn, schema, key, &current);
    if (rc != 0) return rc;
    return put_counter(txn, schema, key, (uint64_t)((int64_t)current + delta));
}

int cb_fold_finish(cb_fold *fold) {
    int rc = adjust_counter(fold->txn, fold->schema, "live-count", fold->live_delta);
    if (rc == 0) rc = adjust_counter(fold->txn, fold->schema, "expired-count", fold->expired_delta);
    fold->live_delta = fold->expired_delta = 0;
    return rc;
}

/* The stored state of `name`; MDB_NOTFOUND when absent. */
static int load_state(cb_fold *fold, const uint8_t name[16], cb_state *state) {
    MDB_val k = val(name, 16), v;
    int rc = mdb_get(fold->txn, fold->schema->shares, &k, &v);
    if (rc != 0) return rc;
    return cb_state_decode(v.mv_data, v.mv_size, state) == 0 ? 0 : MDB_CORRUPTED;
}

/* Writes `state` in place (MDB_RESERVE). */
static int store_state(cb_fold *fold, const uint8_t name[16], const cb_state *state) {
    MDB_val k = val(name, 16), v = val(NULL, cb_state_size(state));
    int rc = mdb_put(fold->txn, fold->schema->shares, &k, &v, MDB_RESERVE);
    if (rc == 0) cb_state_encode(state, v.mv_data);
    return rc;
}

static int put_expiry(cb_fold *fold, const cb_state *state, const uint8_t name[16]) {
    uint8_t key[24], value[16];
    cb_expiry_key(key, state->expires_at, name);
    cb_expiry_value(value, state->position, state->expires_at);
    MDB_val k = val(key, 24), v = val(value, 16);
    return mdb_put(fold->txn, fold->schema->expiry, &k, &v, 0);
}

/* Deletes the expiry entry of a share with a creation: *was_pending says
 * whether there was one. */
static int delete_expiry(cb_fold *fold, const cb_state *state, const uint8_t name[16], int *was_pending) {
    uint8_t key[24];
    cb_expiry_key(key, state->expires_at, name);
    MDB_val k = val(key, 24);
    int rc = mdb_del(fold->txn, fold->schema->expiry, &k, NULL);
    *was_pending = rc == 0;
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int cb_creation_holds_card(MDB_txn *txn, MDB_dbi log, uint64_t position, const uint8_t name[16], int *holds) {
    uint8_t key[8];
    cb_put_be64(key, position);
    MDB_val k = val(key, 8), v;
    int rc = mdb_get(txn, log, &k, &v);
    if (rc != 0) return rc == MDB_NOTFOUND ? MDB_CORRUPTED : rc;
    const uint8_t *entry = v.mv_data;
    if (v.mv_size < CB_EVENT_HEADER + 16 || entry[1] != CB_KIND_CREATED || memcmp(entry + CB_EVENT_HEADER, name, 16) != 0) {
        return MDB_CORRUPTED;
    }
    *holds = !(entry[2] & 1);
    return 0;
}

/* Queues the shareCreated of `name` at `position` for redaction if its log
 * entry still holds a card. */
static int queue_if_card(cb_fold *fold, uint64_t position, const uint8_t name[16]) {
    int holds;
    int rc = cb_creation_holds_card(fold->log_txn, fold->log, position, name, &holds);
    if (rc != 0 || !holds) return rc;
    uint8_t key[8];
    cb_put_be64(key, position);
    MDB_val k = val(key, 8), v = val(NULL, 0);
    return mdb_put(fold->txn, fold->schema->pending_redactions, &k, &v, 0);
}

static void set_creation(cb_state *state, const cb_event *event, uint64_t position) {
    state->has_creation = 1;
    state->created_at = event->created_at;
    state->expires_at = event->expires_at;
    memcpy(state->creator, event->origin, 16);
    state->creator_sequence = event->sequence;
    state->position = position;
    state->has_ttl_end = 0; /* once a creation is known, its expiresAt is the TTL end */
}

static int apply_creation(cb_fold *fold, const cb_event *event, uint64_t position) {
    cb_state state;
    int rc = load_state(fold, event->name, &state);
    if (rc == MDB_NOTFOUND) {
        /* A new pending share: its card is the one fetch answers with. */
        memset(&state, 0, sizeof state);
        set_creation(&state, event, position);
        if ((rc = store_state(fold, event->name, &state)) != 0) return rc;
        fold->live_delta++;
        return put_expiry(fold, &state, event->name);
    }
    if (rc != 0) return rc;
    if (!state.has_creation) {
        /* A creation behind its tombstone: the facts are kept, the card never shown. */
        set_creation(&state, event, position);
        if ((rc = store_state(fold, event->name, &state)) != 0) return rc;
        return event->vcard ? queue_if_card(fold, position, event->name) : 0;
    }
    if (cb_event_id_compare(event->origin, event->sequence, state.creator, state.creator_sequence) >= 0) {
        /* A losing rival: its card is never shown. */
        return event->vcard ? queue_if_card(fold, position, event->name) : 0;
    }
    /* The new creation wins; the old winner's card is never shown again. */
    int pending = 0;
    if (!state.has_revocation && (rc = delete_expiry(fold, &state, event->name, &pending)) != 0) return rc;
    if ((rc = queue_if_card(fold, state.position, event->name)) != 0) return rc;
    set_creation(&state, event, position);
    if ((rc = store_state(fold, event->name, &state)) != 0) return rc;
    if (pending) return put_expiry(fold, &state, event->name);
    return event->vcard ? queue_if_card(fold, position, event->name) : 0;
}

static int apply_expiry(cb_fold *fold, const cb_event *event) {
    cb_end end = {.at = event->at, .sequence = event->sequence};
    memcpy(end.origin, event->origin, 16);
    int revoked = event->reason == CB_REASON_REVOKED;
    cb_state state;
    int rc = load_state(fold, event->name, &state);
    if (rc == MDB_NOTFOUND) {
        memset(&state, 0, sizeof state);
        if (revoked) {
            state.has_revocation = 1;
            state.revocation = end;
        } else {
            state.has_ttl_end = 1;
            state.ttl_end = end;
        }
        fold->expired_delta++;
        return store_state(fold, event->name, &state);
    }
    if (rc != 0) return rc;
    if (state.has_creation && !state.has_revocation) {
        /* The first end of a pending share: it leaves the expiry index, and
         * its card the answers. */
        int pending;
        if ((rc = delete_expiry(fold, &state, event->name, &pending)) != 0) return rc;
        if (pending) {
            fold->live_delta--;
            fold->expired_delta++;
            if ((rc = queue_if_card(fold, state.position, event->name)) != 0) return rc;
        }
    }
    if (revoked) {
        if (state.has_revocation && !cb_end_precedes(&end, &state.revocation)) return 0;
        state.has_revocation = 1;
        state.revocation = end;
    } else {
        /* With a creation, a TTL end is not stored. */
        if (state.has_creation || (state.has_ttl_end && !cb_end_precedes(&end, &state.ttl_end))) return 0;
        state.has_ttl_end = 1;
        state.ttl_end = end;
    }
    return store_state(fold, event->name, &state);
}

int cb_index_event(cb_fold *fold, const cb_event *event, uint64_t position) {
    uint8_t key[24], local[8];
    memcpy(key, event->origin, 16);
    cb_put_be64(key + 16, event->sequence);
    cb_put_be64(local, position);
    MDB_val k = val(key, 24), v = val(local, 8);
    return mdb_put(fold->txn, fold->schema->event_index, &k, &v, MDB_NOOVERWRITE);
}

int cb_project(cb_fold *fold, const cb_event *event, uint64_t position) {
    int rc = cb_index_event(fold, event, position);
    if (rc != 0) return rc;
    switch (event->kind) {
    case CB_KIND_CREATED: return apply_creation(fold, event, position);
    case CB_KIND_EXPIRED: return apply_expiry(fold, event);
    default: return 0;
    }
}

int cb_appender_begin(cb_appender *appender, MDB_txn *txn, const cb_schema *schema, const uint8_t replica[16]) {
    *appender = (cb_appender){.fold = {.txn = txn, .schema = schema, .log_txn = txn, .log = schema->log},
                              .replica = replica};
    int rc = cb_counter(txn, schema, "origin-sequence", &appender->origin_sequence);
    if (rc != 0) return rc;
    appender->start_sequence = appender->origin_sequence;
    MDB_cursor *cursor;
    if ((rc = mdb_cursor_open(txn, schema->log, &cursor)) != 0) return rc;
    MDB_val k, v;
    rc = mdb_cursor_get(cursor, &k, &v, MDB_LAST);
    mdb_cursor_close(cursor);
    if (rc == MDB_NOTFOUND) return 0;
    if (rc != 0) return rc;
    if (k.mv_size != 8) return MDB_CORRUPTED;
    appender->position = cb_get_be64(k.mv_data);
    return 0;
}

int cb_append_local(cb_appender *appender, cb_event *event, uint64_t *position) {
    if (appender->origin_sequence == UINT64_MAX) return MDB_CORRUPTED;
    memcpy(event->origin, appender->replica, 16);
    event->sequence = appender->origin_sequence + 1;
    int rc = cb_append_identified(appender, event, position);
    if (rc == 0) appender->origin_sequence++;
    return rc;
}

int cb_append_identified(cb_appender *appender, const cb_event *event, uint64_t *position) {
    if (appender->position == UINT64_MAX) return MDB_CORRUPTED;
    uint8_t key[8];
    cb_put_be64(key, appender->position + 1);
    MDB_val k = val(key, 8), v = val(NULL, cb_event_size(event));
    int rc = mdb_put(appender->fold.txn, appender->fold.schema->log, &k, &v, MDB_APPEND | MDB_RESERVE);
    if (rc != 0) return rc;
    cb_event_encode(event, v.mv_data);
    *position = ++appender->position;
    return 0;
}

int cb_appender_finish(cb_appender *appender) {
    if (appender->origin_sequence != appender->start_sequence) {
        int rc = put_counter(appender->fold.txn, appender->fold.schema, "origin-sequence", appender->origin_sequence);
        if (rc != 0) return rc;
    }
    return cb_fold_finish(&appender->fold);
}
