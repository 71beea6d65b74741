/* The fold of ShareProjection.swift and the append of ShareStore.swift,
 * over raw LMDB: the same puts, gets and deletes, in the same order. */

#include <string.h>

#include "cb_lmdb_internal.h"

static MDB_val val(const void *data, size_t size) {
    return (MDB_val){.mv_size = size, .mv_data = (void *)data};
}

void cb_expiry_key(uint8_t key[24], int64_t expires_at, const uint8_t name[16]) {
    cb_put_be64(key, expires_at < 0 ? 0 : (uint64_t)expires_at);
    memcpy(key + 8, name, 16);
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

static int adjust_counter(MDB_txn *txn, const cb_schema *schema, const char *key, int64_t delta) {
    uint64_t current;
    int rc = cb_counter(txn, schema, key, &current);
    if (rc != 0) return rc;
    uint8_t bytes[8];
    cb_put_be64(bytes, (uint64_t)((int64_t)current + delta));
    MDB_val k = val(key, strlen(key)), v = val(bytes, 8);
    return mdb_put(txn, schema->meta, &k, &v, 0);
}

/* The stored state of `name`; MDB_NOTFOUND when absent. */
static int load_state(MDB_txn *txn, const cb_schema *schema, const uint8_t name[16], cb_state *state) {
    MDB_val k = val(name, 16), v;
    int rc = mdb_get(txn, schema->shares, &k, &v);
    if (rc != 0) return rc;
    return cb_state_decode(v.mv_data, v.mv_size, state) == 0 ? 0 : MDB_CORRUPTED;
}

/* Writes `state` in place (MDB_RESERVE). `state` must not point into the
 * map: the vCard it carries comes from the event being folded. */
static int store_state(MDB_txn *txn, const cb_schema *schema, const uint8_t name[16], const cb_state *state) {
    MDB_val k = val(name, 16), v = val(NULL, cb_state_size(state));
    int rc = mdb_put(txn, schema->shares, &k, &v, MDB_RESERVE);
    if (rc == 0) cb_state_encode(state, v.mv_data);
    return rc;
}

static int put_empty(MDB_txn *txn, MDB_dbi dbi, const uint8_t *key, size_t size) {
    MDB_val k = val(key, size), v = val(NULL, 0);
    return mdb_put(txn, dbi, &k, &v, 0);
}

static int put_expiry(MDB_txn *txn, const cb_schema *schema, int64_t expires_at, const uint8_t name[16]) {
    uint8_t key[24];
    cb_expiry_key(key, expires_at, name);
    return put_empty(txn, schema->expiry, key, 24);
}

static int delete_expiry(MDB_txn *txn, const cb_schema *schema, int64_t expires_at, const uint8_t name[16]) {
    uint8_t key[24];
    cb_expiry_key(key, expires_at, name);
    MDB_val k = val(key, 24);
    int rc = mdb_del(txn, schema->expiry, &k, NULL);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

/* Queues every logged creation of `name` that still holds its card. */
static int queue_redactions(MDB_txn *txn, const cb_schema *schema, const uint8_t name[16]) {
    uint8_t low[24], high[24];
    memcpy(low, name, 16);
    memcpy(high, name, 16);
    cb_put_be64(low + 16, 0);
    cb_put_be64(high + 16, UINT64_MAX);
    uint64_t sequences[64];
    size_t found = 0;
    MDB_cursor *cursor;
    int rc = mdb_cursor_open(txn, schema->record_creates, &cursor);
    if (rc != 0) return rc;
    MDB_val k = val(low, 24), v;
    for (rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE); rc == 0; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 24 || memcmp(k.mv_data, high, 24) > 0) break;
        if (v.mv_size > 0 && ((uint8_t *)v.mv_data)[0] == 1 && found < 64) {
            sequences[found++] = cb_get_be64((uint8_t *)k.mv_data + 16);
        }
    }
    mdb_cursor_close(cursor);
    if (rc != 0 && rc != MDB_NOTFOUND) return rc;
    for (size_t i = 0; i < found; i++) {
        uint8_t key[8];
        cb_put_be64(key, sequences[i]);
        if ((rc = put_empty(txn, schema->pending_redactions, key, 8)) != 0) return rc;
    }
    return 0;
}

static int apply_creation(MDB_txn *txn, const cb_schema *schema, const cb_event *event, uint64_t sequence) {
    uint8_t key[24], flag = event->vcard ? 1 : 0;
    memcpy(key, event->name, 16);
    cb_put_be64(key + 16, sequence);
    MDB_val k = val(key, 24), v = val(&flag, 1);
    int rc = mdb_put(txn, schema->record_creates, &k, &v, 0);
    if (rc != 0) return rc;
    cb_state state;
    rc = load_state(txn, schema, event->name, &state);
    cb_state fresh = {.has_creation = 1, .created_at = event->created_at, .expires_at = event->expires_at,
                      .creator_sequence = event->sequence, .vcard = event->vcard, .vcard_size = event->vcard_size};
    memcpy(fresh.creator, event->origin, 16);
    if (rc == MDB_NOTFOUND) {
        if ((rc = store_state(txn, schema, event->name, &fresh)) != 0) return rc;
        if ((rc = put_expiry(txn, schema, event->expires_at, event->name)) != 0) return rc;
        return adjust_counter(txn, schema, "live-count", 1);
    }
    if (rc != 0) return rc;
    if (state.has_expiry) {
        /* A creation behind its tombstone: keep the facts, never the card. */
        if (event->vcard) {
            cb_put_be64(key, sequence);
            if ((rc = put_empty(txn, schema->pending_redactions, key, 8)) != 0) return rc;
        }
        if (!state.has_creation ||
            cb_event_id_compare(event->origin, event->sequence, state.creator, state.creator_sequence) < 0) {
            fresh.has_expiry = 1;
            fresh.expired_at = state.expired_at;
            fresh.reason = state.reason;
            memcpy(fresh.expirer, state.expirer, 16);
            fresh.expirer_sequence = state.expirer_sequence;
            fresh.vcard = NULL;
            fresh.vcard_size = 0;
            return store_state(txn, schema, event->name, &fresh);
        }
        return 0;
    }
    if (state.has_creation &&
        cb_event_id_compare(event->origin, event->sequence, state.creator, state.creator_sequence) < 0) {
        if ((rc = delete_expiry(txn, schema, state.expires_at, event->name)) != 0) return rc;
        if ((rc = put_expiry(txn, schema, event->expires_at, event->name)) != 0) return rc;
        return store_state(txn, schema, event->name, &fresh);
    }
    return 0;
}

static int apply_expiry(MDB_txn *txn, const cb_schema *schema, const cb_event *event) {
    cb_state state;
    int rc = load_state(txn, schema, event->name, &state);
    if (rc == MDB_NOTFOUND) {
        cb_state tombstone = {.has_expiry = 1, .expired_at = event->at, .reason = event->reason,
                              .expirer_sequence = event->sequence};
        memcpy(tombstone.expirer, event->origin, 16);
        if ((rc = store_state(txn, schema, event->name, &tombstone)) != 0) return rc;
        return adjust_counter(txn, schema, "expired-count", 1);
    }
    if (rc != 0) return rc;
    state.vcard = NULL; /* points into the map, which the puts below may move */
    state.vcard_size = 0;
    if (state.has_expiry) {
        int earlier = event->at != state.expired_at
            ? event->at < state.expired_at
            : cb_event_id_compare(event->origin, event->sequence, state.expirer, state.expirer_sequence) < 0;
        if (!earlier) return 0;
    } else if (state.has_creation) {
        if ((rc = delete_expiry(txn, schema, state.expires_at, event->name)) != 0) return rc;
    }
    int was_live = state.has_creation && !state.has_expiry;
    state.has_expiry = 1;
    state.expired_at = event->at;
    state.reason = event->reason;
    memcpy(state.expirer, event->origin, 16);
    state.expirer_sequence = event->sequence;
    if ((rc = store_state(txn, schema, event->name, &state)) != 0) return rc;
    if (!was_live) return 0;
    if ((rc = adjust_counter(txn, schema, "live-count", -1)) != 0) return rc;
    if ((rc = adjust_counter(txn, schema, "expired-count", 1)) != 0) return rc;
    return queue_redactions(txn, schema, event->name);
}

int cb_project(MDB_txn *txn, const cb_schema *schema, const cb_event *event, uint64_t sequence) {
    uint8_t key[24], local[8];
    memcpy(key, event->origin, 16);
    cb_put_be64(key + 16, event->sequence);
    cb_put_be64(local, sequence);
    MDB_val k = val(key, 24), v = val(local, 8);
    int rc = mdb_put(txn, schema->event_index, &k, &v, 0);
    if (rc != 0) return rc;
    switch (event->kind) {
    case CB_KIND_CREATED: return apply_creation(txn, schema, event, sequence);
    case CB_KIND_EXPIRED: return apply_expiry(txn, schema, event);
    default: return 0;
    }
}

int cb_append_local(MDB_txn *txn, const cb_schema *schema, const uint8_t replica[16], cb_event *event) {
    uint64_t origin_sequence;
    int rc = cb_counter(txn, schema, "origin-sequence", &origin_sequence);
    if (rc != 0) return rc;
    uint8_t counter[8];
    cb_put_be64(counter, ++origin_sequence);
    MDB_val k = val("origin-sequence", 15), v = val(counter, 8);
    if ((rc = mdb_put(txn, schema->meta, &k, &v, 0)) != 0) return rc;
    memcpy(event->origin, replica, 16);
    event->sequence = origin_sequence;

    /* EventLog.append: skip a logged id, else append after the last entry. */
    uint8_t id[24];
    memcpy(id, replica, 16);
    cb_put_be64(id + 16, origin_sequence);
    k = val(id, 24);
    rc = mdb_get(txn, schema->event_index, &k, &v);
    if (rc == 0) return MDB_KEYEXIST;
    if (rc != MDB_NOTFOUND) return rc;
    MDB_cursor *cursor;
    if ((rc = mdb_cursor_open(txn, schema->log, &cursor)) != 0) return rc;
    MDB_val last_key, last_value;
    rc = mdb_cursor_get(cursor, &last_key, &last_value, MDB_LAST);
    uint64_t sequence = rc == 0 && last_key.mv_size == 8 ? cb_get_be64(last_key.mv_data) + 1 : 1;
    mdb_cursor_close(cursor);
    if (rc != 0 && rc != MDB_NOTFOUND) return rc;
    uint8_t sequence_key[8];
    cb_put_be64(sequence_key, sequence);
    k = val(sequence_key, 8);
    v = val(NULL, cb_event_size(event));
    if ((rc = mdb_put(txn, schema->log, &k, &v, MDB_APPEND | MDB_RESERVE)) != 0) return rc;
    cb_event_encode(event, v.mv_data);
    return cb_project(txn, schema, event, sequence);
}
