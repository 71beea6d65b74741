#ifndef SHARELOG_CB_SQLITE_INTERNAL_H
#define SHARELOG_CB_SQLITE_INTERNAL_H

/* The SQLite baseline's connections and prepared statements. */

#include <sqlite3.h>

#include "cb_internal.h"

/* One connection with its prepared statements; a thread uses its own. */
typedef struct {
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *rollback;
    sqlite3_stmt *insert_created, *insert_share;
    sqlite3_stmt *select_share;
    sqlite3_stmt *select_due, *insert_expired, *delete_share;
} cb_sqlite_connection;

struct cb_sqlite {
    char path[4096];
    int durable;
    uint8_t replica[16];
    cb_sqlite_connection main;
    char error[512];
};

/* Opens a connection to `path` (WAL, synchronous FULL or OFF, a busy
 * timeout) and prepares its statements; the schema must exist. Returns an
 * SQLite code, with the reason in error[error_size]. */
int cb_sqlite_connect(const char *path, int durable, cb_sqlite_connection *connection,
                      char *error, size_t error_size);
/* Finalises the statements and closes the connection. */
void cb_sqlite_disconnect(cb_sqlite_connection *connection);

/* Records the failure `what` on `db` in the store; returns rc. */
int cb_sqlite_fail(cb_sqlite *store, sqlite3 *db, int rc, const char *what);

/* Steps a statement that returns no rows and resets it. */
int cb_sqlite_run(sqlite3_stmt *statement);

/* Runs SQL with no parameters and no rows. */
int cb_sqlite_exec(sqlite3 *db, const char *sql);

#endif
