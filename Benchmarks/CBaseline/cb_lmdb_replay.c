/* ShareStore.verify in raw LMDB: fold the log into a scratch store by the
 * rules of format 2, then walk every derived database (eventIndex, shares,
 * expiry, pendingRedactions) and counter side by side with the stored one. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cb_lmdb_internal.h"

typedef struct {
    MDB_env *env;
    cb_schema schema;
    MDB_txn *snapshot;  /* the replayed store's read snapshot */
    MDB_dbi log;        /* its log, where cards are looked up */
    cb_event *events;
    uint64_t *positions;
    size_t count;
} scratch_store;

/* Folds the buffered events into the scratch store in one transaction. */
static int flush(scratch_store *scratch) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(scratch->env, NULL, 0, &txn);
    if (rc != 0) return rc;
    /* Whether a creation still holds its card is read from the stored log:
     * pendingRedactions describes the log as it is now. */
    cb_fold fold = {.txn = txn, .schema = &scratch->schema, .log_txn = scratch->snapshot, .log = scratch->log};
    for (size_t i = 0; i < scratch->count && rc == 0; i++) {
        rc = cb_project(&fold, &scratch->events[i], scratch->positions[i]);
    }
    if (rc == 0) rc = cb_fold_finish(&fold);
    if (rc != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    scratch->count = 0;
    return mdb_txn_commit(txn);
}

/* Folds the whole log, read in the snapshot `txn`. */
static int fold(MDB_txn *txn, const cb_schema *schema, scratch_store *scratch, size_t chunk,
                cb_progress_fn progress, void *context, cb_replay_report *report) {
    MDB_cursor *cursor;
    int rc = mdb_cursor_open(txn, schema->log, &cursor);
    if (rc != 0) return rc;
    uint64_t expected = 1;
    MDB_val k, v;
    for (rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
        uint64_t position = k.mv_size == 8 ? cb_get_be64(k.mv_data) : 0;
        if (position != expected) report->sequence_gaps++;
        expected = position + 1;
        if (cb_event_decode(v.mv_data, v.mv_size, &scratch->events[scratch->count]) != 0) {
            report->corrupt_events++;
            continue;
        }
        scratch->positions[scratch->count++] = position;
        if (scratch->count == chunk) {
            if ((rc = flush(scratch)) != 0) break;
            report->events += chunk;
            if (progress) progress(context, report->events);
        }
    }
    mdb_cursor_close(cursor);
    if (rc != MDB_NOTFOUND) return rc;
    size_t rest = scratch->count;
    if ((rc = flush(scratch)) != 0) return rc;
    report->events += rest;
    if (progress) progress(context, report->events);
    return 0;
}

static int key_order(const MDB_val *a, const MDB_val *b) {
    size_t common = a->mv_size < b->mv_size ? a->mv_size : b->mv_size;
    int order = common ? memcmp(a->mv_data, b->mv_data, common) : 0;
    if (order != 0) return order;
    return a->mv_size < b->mv_size ? -1 : a->mv_size > b->mv_size ? 1 : 0;
}

/* Walks two databases in key order side by side, counting differences. */
static int compare(MDB_txn *stored_txn, MDB_dbi stored, MDB_txn *rebuilt_txn, MDB_dbi rebuilt,
                   cb_replay_report *report) {
    MDB_cursor *left, *right;
    int rc = mdb_cursor_open(stored_txn, stored, &left);
    if (rc != 0) return rc;
    if ((rc = mdb_cursor_open(rebuilt_txn, rebuilt, &right)) != 0) {
        mdb_cursor_close(left);
        return rc;
    }
    MDB_val ak, av, bk, bv;
    int a = mdb_cursor_get(left, &ak, &av, MDB_FIRST), b = mdb_cursor_get(right, &bk, &bv, MDB_FIRST);
    while (a == 0 || b == 0) {
        report->entries_compared++;
        int order = a == 0 && b == 0 ? key_order(&ak, &bk) : a == 0 ? -1 : 1;
        if (order == 0) {
            if (av.mv_size != bv.mv_size || (av.mv_size && memcmp(av.mv_data, bv.mv_data, av.mv_size) != 0)) {
                report->mismatches++;
            }
            a = mdb_cursor_get(left, &ak, &av, MDB_NEXT);
            b = mdb_cursor_get(right, &bk, &bv, MDB_NEXT);
        } else if (order < 0) {
            report->mismatches++;
            a = mdb_cursor_get(left, &ak, &av, MDB_NEXT);
        } else {
            report->mismatches++;
            b = mdb_cursor_get(right, &bk, &bv, MDB_NEXT);
        }
    }
    mdb_cursor_close(left);
    mdb_cursor_close(right);
    return (a == 0 || a == MDB_NOTFOUND) && (b == 0 || b == MDB_NOTFOUND) ? 0 : (a != MDB_NOTFOUND ? a : b);
}

static int compare_all(MDB_txn *txn, const cb_schema *stored, MDB_env *scratch_env, const cb_schema *rebuilt,
                       cb_replay_report *report) {
    MDB_txn *rebuilt_txn;
    int rc = mdb_txn_begin(scratch_env, NULL, MDB_RDONLY, &rebuilt_txn);
    if (rc != 0) return rc;
    MDB_dbi left[4] = {stored->event_index, stored->shares, stored->expiry, stored->pending_redactions};
    MDB_dbi right[4] = {rebuilt->event_index, rebuilt->shares, rebuilt->expiry, rebuilt->pending_redactions};
    for (int i = 0; i < 4 && rc == 0; i++) rc = compare(txn, left[i], rebuilt_txn, right[i], report);
    const char *counters[2] = {"live-count", "expired-count"};
    for (int i = 0; i < 2 && rc == 0; i++) {
        uint64_t stored_count, rebuilt_count;
        if ((rc = cb_counter(txn, stored, counters[i], &stored_count)) == 0 &&
            (rc = cb_counter(rebuilt_txn, rebuilt, counters[i], &rebuilt_count)) == 0 &&
            stored_count != rebuilt_count) {
            report->mismatches++;
        }
    }
    mdb_txn_abort(rebuilt_txn);
    return rc;
}

static void remove_scratch(const char *directory) {
    char path[4096];
    snprintf(path, sizeof path, "%s/data.mdb", directory);
    unlink(path);
    snprintf(path, sizeof path, "%s/lock.mdb", directory);
    unlink(path);
    rmdir(directory);
}

int cb_lmdb_replay(cb_lmdb *store, const char *scratch_directory, size_t chunk,
                   cb_progress_fn progress, void *context, cb_replay_report *report, uint64_t *elapsed_ns) {
    memset(report, 0, sizeof *report);
    if (chunk == 0) chunk = 1;
    uint64_t start = cb_now_ns();
    scratch_store scratch = {.events = malloc(chunk * sizeof(cb_event)), .positions = malloc(chunk * sizeof(uint64_t))};
    int rc = scratch.events && scratch.positions ? 0 : ENOMEM;
    if (rc == 0) rc = cb_schema_open(scratch_directory, MDB_NOSYNC, 1, &scratch.env, &scratch.schema);
    MDB_txn *txn = NULL;
    if (rc == 0) rc = mdb_txn_begin(store->env, NULL, MDB_RDONLY, &txn);
    scratch.snapshot = txn;
    scratch.log = store->schema.log;
    if (rc == 0) rc = fold(txn, &store->schema, &scratch, chunk, progress, context, report);
    if (rc == 0) rc = compare_all(txn, &store->schema, scratch.env, &scratch.schema, report);
    if (txn) mdb_txn_abort(txn);
    if (scratch.env) mdb_env_close(scratch.env);
    remove_scratch(scratch_directory);
    free(scratch.events);
    free(scratch.positions);
    *elapsed_ns = cb_now_ns() - start;
    return rc == 0 ? 0 : cb_lmdb_fail(store, rc, "replaying the log");
}
