#ifndef SHARELOG_CB_LMDB_INTERNAL_H
#define SHARELOG_CB_LMDB_INTERNAL_H

/* Store format 2 (docs/FORMAT.md) in raw LMDB: its seven databases, the
 * append of a local event, and the fold of events into the derived
 * databases. */

#include <lmdb.h>

#include "cb_internal.h"

/* The seven named databases of a store. */
typedef struct {
    MDB_dbi meta, log, event_index, shares, expiry, pending_redactions, cursors;
} cb_schema;

struct cb_lmdb {
    MDB_env *env;
    cb_schema schema;
    uint8_t replica[16];
    char error[256];
};

/* Opens an environment in `directory` with `flags` and the seven databases
 * (created when `create` != 0). Returns an LMDB code; *env is NULL on failure. */
int cb_schema_open(const char *directory, unsigned int flags, int create, MDB_env **env, cb_schema *schema);

/* Records `rc` (an LMDB or errno code) and what failed; returns rc. */
int cb_lmdb_fail(cb_lmdb *store, int rc, const char *what);

/* Folding events into the derived databases within one write transaction,
 * as ShareProjection does: the same puts, gets and deletes, with the
 * counters' changes summed here and written once by cb_fold_finish. */
typedef struct {
    MDB_txn *txn;            /* the write transaction of the derived databases */
    const cb_schema *schema; /* their databases */
    MDB_txn *log_txn;        /* where log entries are read: txn, or a replayed snapshot */
    MDB_dbi log;             /* the log in log_txn */
    int64_t live_delta, expired_delta;
} cb_fold;

/* Records `event`, logged at `position`, in every derived database: its
 * eventIndex entry, then the share-state rules of docs/FORMAT.md. */
int cb_project(cb_fold *fold, const cb_event *event, uint64_t position);

/* Puts the eventIndex entry of `event` at `position` (MDB_NOOVERWRITE: an
 * id already logged is MDB_KEYEXIST). */
int cb_index_event(cb_fold *fold, const cb_event *event, uint64_t position);

/* Adds the summed counter changes to `live-count` and `expired-count`;
 * call once, before the commit. */
int cb_fold_finish(cb_fold *fold);

/* ShareStore's LocalLog and projection for this replica's own events in one
 * write transaction: the origin counter and last log position are read
 * once, at cb_appender_begin, and the counters written once, by
 * cb_appender_finish. */
typedef struct {
    cb_fold fold;
    const uint8_t *replica;
    uint64_t position;       /* of the last log entry */
    uint64_t origin_sequence; /* of the last local event */
    uint64_t start_sequence;
} cb_appender;

/* Starts appending in `txn`, where the log is also read. */
int cb_appender_begin(cb_appender *appender, MDB_txn *txn, const cb_schema *schema, const uint8_t replica[16]);

/* Numbers `event` (kind and facts filled in) with this replica's next
 * origin counter and appends it after the last log entry (MDB_APPEND) at
 * *position. Projects nothing. */
int cb_append_local(cb_appender *appender, cb_event *event, uint64_t *position);

/* Appends `event`, whose id the caller gave it, after the last log entry
 * (MDB_APPEND) at *position, counting nothing: a TTL end, whose id is the
 * same on every replica (origin the record name, counter 0; docs/FORMAT.md). */
int cb_append_identified(cb_appender *appender, const cb_event *event, uint64_t *position);

/* Writes the origin counter (when an event was appended) and the fold's
 * counters; call once, before the commit. */
int cb_appender_finish(cb_appender *appender);

/* Whether the log entry at `position` (in `log` of `txn`) is a shareCreated
 * of `name` that still holds its card, from its kind, flag and name bytes:
 * *holds is 1 or 0; MDB_CORRUPTED when it is not a creation of `name`. */
int cb_creation_holds_card(MDB_txn *txn, MDB_dbi log, uint64_t position, const uint8_t name[16], int *holds);

/* A meta counter, 0 when absent. */
int cb_counter(MDB_txn *txn, const cb_schema *schema, const char *key, uint64_t *value);

/* The 24-byte expiry key: expiresAt (8, clamped at 0) + record name. */
void cb_expiry_key(uint8_t key[24], int64_t expires_at, const uint8_t name[16]);

/* The 16-byte expiry value: the creation's log position + expiresAt. */
void cb_expiry_value(uint8_t value[16], uint64_t position, int64_t expires_at);

#endif
