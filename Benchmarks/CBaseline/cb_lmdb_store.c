/* Opening, initialising and closing a store of format 2 (docs/FORMAT.md). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cb_lmdb_internal.h"

/* The map is sized once for the largest benchmark store: raw LMDB needs no
 * growth protocol when the map never fills. */
static const size_t map_size = (size_t)64 << 30;

int cb_schema_open(const char *directory, unsigned int flags, int create, MDB_env **env, cb_schema *schema) {
    *env = NULL;
    if (create && mkdir(directory, 0700) != 0 && errno != EEXIST) return errno;
    MDB_env *opened;
    int rc = mdb_env_create(&opened);
    if (rc != 0) return rc;
    if ((rc = mdb_env_set_maxdbs(opened, 7)) != 0 || (rc = mdb_env_set_mapsize(opened, map_size)) != 0 ||
        (rc = mdb_env_open(opened, directory, flags, 0600)) != 0) {
        mdb_env_close(opened);
        return rc;
    }
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(opened, NULL, create ? 0 : MDB_RDONLY, &txn)) != 0) {
        mdb_env_close(opened);
        return rc;
    }
    const char *names[7] = {"meta", "log", "eventIndex", "shares", "expiry", "pendingRedactions", "cursors"};
    MDB_dbi *dbis[7] = {&schema->meta, &schema->log, &schema->event_index, &schema->shares,
                        &schema->expiry, &schema->pending_redactions, &schema->cursors};
    for (int i = 0; i < 7 && rc == 0; i++) rc = mdb_dbi_open(txn, names[i], create ? MDB_CREATE : 0, dbis[i]);
    rc = rc == 0 ? mdb_txn_commit(txn) : (mdb_txn_abort(txn), rc);
    if (rc != 0) {
        mdb_env_close(opened);
        return rc;
    }
    *env = opened;
    return 0;
}

int cb_lmdb_fail(cb_lmdb *store, int rc, const char *what) {
    snprintf(store->error, sizeof store->error, "%s: %s", what, mdb_strerror(rc));
    return rc;
}

static int put_meta(MDB_txn *txn, const cb_schema *schema, const char *key, const void *value, size_t size) {
    MDB_val k = {.mv_size = strlen(key), .mv_data = (void *)key};
    MDB_val v = {.mv_size = size, .mv_data = (void *)value};
    return mdb_put(txn, schema->meta, &k, &v, 0);
}

/* ShareStore.create: writes the schema version (2), replica id and epoch
 * into a new store, and reads the replica id of any store. */
static int initialise(cb_lmdb *store) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(store->env, NULL, 0, &txn);
    if (rc != 0) return rc;
    MDB_val k = {.mv_size = 7, .mv_data = "replica"}, v;
    rc = mdb_get(txn, store->schema.meta, &k, &v);
    if (rc == 0 && v.mv_size == 16) {
        memcpy(store->replica, v.mv_data, 16);
        /* Only a format-2 store is one this baseline writes. */
        k = (MDB_val){.mv_size = 6, .mv_data = "schema"};
        rc = mdb_get(txn, store->schema.meta, &k, &v);
        int format2 = rc == 0 && v.mv_size == 4 && cb_get_be32(v.mv_data) == 2;
        mdb_txn_abort(txn);
        return format2 ? 0 : rc != 0 && rc != MDB_NOTFOUND ? rc : MDB_INCOMPATIBLE;
    }
    uint8_t version[4], epoch[16];
    cb_put_be32(version, 2);
    if (rc != MDB_NOTFOUND || cb_random_name(store->replica) != 0 || cb_random_name(epoch) != 0) {
        mdb_txn_abort(txn);
        return rc != MDB_NOTFOUND && rc != 0 ? rc : MDB_CORRUPTED;
    }
    if ((rc = put_meta(txn, &store->schema, "schema", version, 4)) != 0 ||
        (rc = put_meta(txn, &store->schema, "replica", store->replica, 16)) != 0 ||
        (rc = put_meta(txn, &store->schema, "epoch", epoch, 16)) != 0) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

cb_lmdb *cb_lmdb_open(const char *directory, int durable, char *error, size_t error_size) {
    cb_lmdb *store = calloc(1, sizeof *store);
    if (!store) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    /* The experiments of BENCHMARKS.md that open the baseline with the flags
     * ShareLog's LMDB module uses: CB_LMDB_WRITEMAP set adds MDB_WRITEMAP,
     * CB_LMDB_NORDAHEAD set adds MDB_NORDAHEAD, CB_LMDB_NOTLS set adds
     * MDB_NOTLS, so that each read transaction takes a reader slot under
     * the reader table's mutex as ShareLog's do ("The engine's hot paths"). */
    unsigned int flags = (durable ? 0 : MDB_NOSYNC) | (getenv("CB_LMDB_WRITEMAP") ? MDB_WRITEMAP : 0) |
                         (getenv("CB_LMDB_NORDAHEAD") ? MDB_NORDAHEAD : 0) | (getenv("CB_LMDB_NOTLS") ? MDB_NOTLS : 0);
    int rc = cb_schema_open(directory, flags, 1, &store->env, &store->schema);
    if (rc == 0 && (rc = initialise(store)) != 0) mdb_env_close(store->env);
    if (rc != 0) {
        snprintf(error, error_size, "opening the LMDB store %s: %s", directory, mdb_strerror(rc));
        free(store);
        return NULL;
    }
    return store;
}

void cb_lmdb_close(cb_lmdb *store) {
    if (!store) return;
    mdb_env_close(store->env);
    free(store);
}

const char *cb_lmdb_error(const cb_lmdb *store) { return store->error; }

int64_t cb_lmdb_commits(cb_lmdb *store) {
    MDB_envinfo info;
    return mdb_env_info(store->env, &info) == 0 ? (int64_t)info.me_last_txnid : -1;
}

const char *cb_lmdb_version(void) { return mdb_version(NULL, NULL, NULL); }
