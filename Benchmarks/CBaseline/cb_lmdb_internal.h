#ifndef SHARELOG_CB_LMDB_INTERNAL_H
#define SHARELOG_CB_LMDB_INTERNAL_H

/* ShareLog's schema in raw LMDB: the databases of Schema.swift, the
 * appendLocal of ShareStore.swift and the fold of ShareProjection.swift. */

#include <lmdb.h>

#include "cb_internal.h"

/* The seven named databases of a store. */
typedef struct {
    MDB_dbi meta, log, event_index, shares, expiry, record_creates, pending_redactions;
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

/* ShareStore.appendLocal: numbers `event` (kind and facts filled in) with
 * this replica's next origin sequence, logs it with MDB_APPEND and
 * projects it, in `txn`. */
int cb_append_local(MDB_txn *txn, const cb_schema *schema, const uint8_t replica[16], cb_event *event);

/* ShareProjection.apply: records `event`, logged at local `sequence`, in
 * every derived database. */
int cb_project(MDB_txn *txn, const cb_schema *schema, const cb_event *event, uint64_t sequence);

/* A meta counter, 0 when absent. */
int cb_counter(MDB_txn *txn, const cb_schema *schema, const char *key, uint64_t *value);

/* The 24-byte expiry key: expiresAt (8, clamped at 0) + record name. */
void cb_expiry_key(uint8_t key[24], int64_t expires_at, const uint8_t name[16]);

#endif
