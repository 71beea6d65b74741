/* The measured LMDB work: creates, fetches, sweeps and the cold fetch. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_lmdb_internal.h"

typedef struct {
    cb_lmdb *store;
    const cb_cards *cards;
    size_t first, stride, batch;
    int64_t created_ms, ttl_ms;
    uint8_t *names_out;
    int rc;
    const char *what;
} create_job;

static int job_failed(create_job *job, int rc, const char *what) {
    job->rc = rc;
    job->what = what;
    return rc;
}

static int create_range(void *argument) {
    create_job *job = argument;
    const cb_cards *cards = job->cards;
    size_t index = job->first;
    while (index < cards->count) {
        MDB_txn *txn;
        int rc = mdb_txn_begin(job->store->env, NULL, 0, &txn);
        if (rc != 0) return job_failed(job, rc, "mdb_txn_begin(write)");
        cb_appender appender;
        rc = cb_appender_begin(&appender, txn, &job->store->schema, job->store->replica);
        for (size_t n = 0; rc == 0 && n < job->batch && index < cards->count; n++, index += job->stride) {
            cb_event event = {.kind = CB_KIND_CREATED, .created_at = job->created_ms,
                              .expires_at = job->created_ms + job->ttl_ms};
            event.vcard = cb_card(cards, index, &event.vcard_size);
            uint64_t position;
            if (cb_random_name(event.name) != 0) rc = MDB_PANIC;
            if (rc == 0) rc = cb_append_local(&appender, &event, &position);
            if (rc == 0) rc = cb_project(&appender.fold, &event, position);
            if (rc == 0) memcpy(job->names_out + 16 * index, event.name, 16);
        }
        if (rc == 0) rc = cb_appender_finish(&appender);
        if (rc != 0) {
            mdb_txn_abort(txn);
            return job_failed(job, rc, "creating a share");
        }
        if ((rc = mdb_txn_commit(txn)) != 0) return job_failed(job, rc, "mdb_txn_commit");
    }
    return 0;
}

int cb_lmdb_create(cb_lmdb *store, const cb_cards *cards, size_t batch, int threads,
                   int64_t created_ms, int64_t ttl_ms, uint8_t *names_out, uint64_t *elapsed_ns) {
    if (threads < 1) threads = 1;
    create_job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!jobs) return cb_lmdb_fail(store, ENOMEM, "cb_lmdb_create");
    for (int t = 0; t < threads; t++) {
        jobs[t] = (create_job){store, cards, (size_t)t, (size_t)threads, batch ? batch : 1,
                               created_ms, ttl_ms, names_out, 0, NULL};
    }
    uint64_t start = cb_now_ns();
    int rc = cb_run_threads(threads, create_range, jobs, sizeof *jobs);
    *elapsed_ns = cb_now_ns() - start;
    for (int t = 0; t < threads && rc != 0; t++) {
        if (jobs[t].rc != 0) cb_lmdb_fail(store, jobs[t].rc, jobs[t].what);
    }
    free(jobs);
    return rc;
}

/* Whether a share with a creation only is live at now_ms, and if so copies
 * its card out of the log entry at the creation's position, as the Swift
 * Share's [UInt8] is. A redacted entry's card is gone: expired. */
static int fetch_card(MDB_txn *txn, const cb_schema *schema, const cb_state *state, cb_fetch_tally *tally) {
    uint8_t key[8];
    cb_put_be64(key, state->position);
    MDB_val k = {.mv_size = 8, .mv_data = key}, v;
    int rc = mdb_get(txn, schema->log, &k, &v);
    if (rc != 0) return rc == MDB_NOTFOUND ? MDB_CORRUPTED : rc;
    cb_event event;
    if (cb_event_decode(v.mv_data, v.mv_size, &event) != 0 || event.kind != CB_KIND_CREATED) return MDB_CORRUPTED;
    if (!event.vcard) {
        tally->expired++;
        return 0;
    }
    uint8_t *copy = malloc(event.vcard_size ? event.vcard_size : 1);
    if (!copy) return ENOMEM;
    memcpy(copy, event.vcard, event.vcard_size);
    tally->live++;
    tally->bytes += event.vcard_size;
    cb_consume(copy, event.vcard_size);
    free(copy);
    return 0;
}

/* What ShareStore.fetch answers for `name` at now_ms, by "What a share reads
 * as at time t" (docs/FORMAT.md): the state from `shares`; then, for a
 * share with a creation only that has not reached its expiresAt, whether
 * it is still pending in `expiry`, and the card from the log. */
static int fetch_one(MDB_env *env, const cb_schema *schema, const uint8_t *name, int64_t now_ms, cb_fetch_tally *tally) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) return rc;
    MDB_val k = {.mv_size = 16, .mv_data = (void *)name}, v;
    rc = mdb_get(txn, schema->shares, &k, &v);
    cb_state state;
    if (rc == MDB_NOTFOUND) {
        tally->missing++;
        rc = 0;
    } else if (rc == 0 && cb_state_decode(v.mv_data, v.mv_size, &state) != 0) {
        rc = MDB_CORRUPTED;
    } else if (rc == 0) {
        if (!state.has_creation || state.has_revocation || state.expires_at <= now_ms) {
            tally->expired++;
        } else {
            /* A share no longer pending has had an end logged: it stays ended. */
            uint8_t key[24];
            cb_expiry_key(key, state.expires_at, name);
            MDB_val pending_key = {.mv_size = 24, .mv_data = key}, pending;
            rc = mdb_get(txn, schema->expiry, &pending_key, &pending);
            if (rc == MDB_NOTFOUND) {
                tally->expired++;
                rc = 0;
            } else if (rc == 0) {
                rc = fetch_card(txn, schema, &state, tally);
            }
        }
    }
    mdb_txn_abort(txn);
    return rc;
}

typedef struct {
    cb_lmdb *store;
    const uint8_t *names;
    size_t first, end;
    int64_t now_ms;
    cb_fetch_tally tally;
    int rc;
} fetch_job;

static int fetch_range(void *argument) {
    fetch_job *job = argument;
    for (size_t i = job->first; i < job->end; i++) {
        int rc = fetch_one(job->store->env, &job->store->schema, job->names + 16 * i, job->now_ms, &job->tally);
        if (rc != 0) return job->rc = rc;
    }
    return 0;
}

int cb_lmdb_fetch(cb_lmdb *store, const uint8_t *names, size_t count, int threads, int64_t now_ms,
                  cb_fetch_tally *tally, uint64_t *elapsed_ns) {
    if (threads < 1) threads = 1;
    fetch_job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!jobs) return cb_lmdb_fail(store, ENOMEM, "cb_lmdb_fetch");
    for (int t = 0; t < threads; t++) {
        jobs[t] = (fetch_job){.store = store, .names = names, .now_ms = now_ms,
                              .first = count * (size_t)t / (size_t)threads,
                              .end = count * (size_t)(t + 1) / (size_t)threads};
    }
    uint64_t start = cb_now_ns();
    int rc = cb_run_threads(threads, fetch_range, jobs, sizeof *jobs);
    *elapsed_ns = cb_now_ns() - start;
    memset(tally, 0, sizeof *tally);
    for (int t = 0; t < threads; t++) {
        tally->live += jobs[t].tally.live;
        tally->expired += jobs[t].tally.expired;
        tally->missing += jobs[t].tally.missing;
        tally->bytes += jobs[t].tally.bytes;
        if (jobs[t].rc != 0) cb_lmdb_fail(store, jobs[t].rc, "fetching a share");
    }
    free(jobs);
    return rc;
}

/* Logs the TTL end of the pending share whose expiry entry is under
 * `cursor`, and removes the entry: a shareExpired(ttl) at its expiresAt in
 * the log and eventIndex, its creation queued for redaction if its log
 * entry still holds the card. `shares` is not touched: with a creation, a
 * TTL end is implied by expiresAt. */
static int expire_due(cb_appender *appender, MDB_cursor *cursor, const MDB_val *k, const MDB_val *v) {
    if (k->mv_size != 24 || v->mv_size != 16) return MDB_CORRUPTED;
    cb_fold *fold = &appender->fold;
    uint64_t creation = cb_get_be64(v->mv_data);
    cb_event event = {.kind = CB_KIND_EXPIRED, .at = (int64_t)cb_get_be64((uint8_t *)v->mv_data + 8),
                      .reason = CB_REASON_TTL};
    memcpy(event.name, (uint8_t *)k->mv_data + 8, 16);
    /* The TTL end's id, as ShareStore.sweep logs it (EventID.ttlEnd(of:)):
     * the record name as origin, counter 0. */
    memcpy(event.origin, event.name, 16);
    event.sequence = 0;
    uint64_t position;
    int holds;
    int rc = cb_append_identified(appender, &event, &position);
    if (rc == 0) rc = cb_index_event(fold, &event, position);
    if (rc == 0) rc = cb_creation_holds_card(fold->txn, fold->log, creation, event.name, &holds);
    if (rc != 0) return rc;
    if ((rc = mdb_cursor_del(cursor, 0)) != 0) return rc;
    if (holds) {
        uint8_t key[8];
        cb_put_be64(key, creation);
        MDB_val queued = {.mv_size = 8, .mv_data = key}, empty = {.mv_size = 0, .mv_data = NULL};
        if ((rc = mdb_put(fold->txn, fold->schema->pending_redactions, &queued, &empty, 0)) != 0) return rc;
    }
    fold->live_delta--;
    fold->expired_delta++;
    return 0;
}

/* One sweep batch: walks the expiry index from its start and expires up to
 * `batch` shares due at now_ms (expiresAt <= now_ms), in one transaction. */
static int sweep_batch(cb_lmdb *store, int64_t now_ms, size_t batch, size_t *expired) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(store->env, NULL, 0, &txn);
    if (rc != 0) return cb_lmdb_fail(store, rc, "mdb_txn_begin(sweep)");
    cb_appender appender;
    MDB_cursor *cursor;
    if ((rc = cb_appender_begin(&appender, txn, &store->schema, store->replica)) != 0 ||
        (rc = mdb_cursor_open(txn, store->schema.expiry, &cursor)) != 0) {
        mdb_txn_abort(txn);
        return cb_lmdb_fail(store, rc, "starting a sweep batch");
    }
    /* Keys hold expiresAt clamped at 0, so every due key is at most this. */
    uint64_t last_due = now_ms < 0 ? 0 : (uint64_t)now_ms;
    size_t found = 0;
    MDB_val k, v;
    for (rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0 && found < batch;
         rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 24) {
            rc = MDB_CORRUPTED;
            break;
        }
        if (cb_get_be64(k.mv_data) > last_due) break;
        if (v.mv_size == 16 && (int64_t)cb_get_be64((uint8_t *)v.mv_data + 8) > now_ms) continue;
        if ((rc = expire_due(&appender, cursor, &k, &v)) != 0) break;
        found++;
    }
    mdb_cursor_close(cursor);
    if (rc == 0 || rc == MDB_NOTFOUND) rc = cb_appender_finish(&appender);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return cb_lmdb_fail(store, rc, "expiring a share");
    }
    if ((rc = mdb_txn_commit(txn)) != 0) return cb_lmdb_fail(store, rc, "mdb_txn_commit(sweep)");
    *expired = found;
    return 0;
}

int cb_lmdb_sweep(cb_lmdb *store, int64_t now_ms, size_t batch, uint64_t *expired, uint64_t *elapsed_ns) {
    if (batch == 0) batch = 1;
    *expired = 0;
    uint64_t start = cb_now_ns();
    int rc;
    size_t found;
    do {
        rc = sweep_batch(store, now_ms, batch, &found);
        *expired += found;
    } while (rc == 0 && found == batch);
    *elapsed_ns = cb_now_ns() - start;
    return rc;
}

int cb_lmdb_cold_fetch(const char *directory, const uint8_t name[16], int64_t now_ms, char *error, size_t error_size) {
    MDB_env *env;
    cb_schema schema;
    int rc = cb_schema_open(directory, 0, 0, &env, &schema);
    if (rc != 0) {
        snprintf(error, error_size, "opening %s: %s", directory, mdb_strerror(rc));
        return -1;
    }
    cb_fetch_tally tally = {0, 0, 0, 0};
    rc = fetch_one(env, &schema, name, now_ms, &tally);
    mdb_env_close(env);
    if (rc != 0) {
        snprintf(error, error_size, "fetching from %s: %s", directory, mdb_strerror(rc));
        return -1;
    }
    return tally.live ? 0 : tally.expired ? 1 : 2;
}
