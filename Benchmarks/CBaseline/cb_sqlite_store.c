/* The SQLite store as a user would set it up: WAL, synchronous=FULL, a
 * shares table keyed by record name with an index on expires_at, and an
 * append-only events table that carries each event, vCard included, with
 * its identity (origin replica, origin sequence) unique for sync. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>

#include "cb_sqlite_internal.h"

static const char *schema_sql =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS events("
    "  seq INTEGER PRIMARY KEY,"
    "  origin BLOB NOT NULL,"
    "  origin_seq INTEGER NOT NULL,"
    "  kind INTEGER NOT NULL,"
    "  record_name BLOB NOT NULL,"
    "  at INTEGER NOT NULL,"
    "  expires_at INTEGER,"
    "  reason INTEGER,"
    "  vcard BLOB,"
    "  UNIQUE(origin, origin_seq));"
    "CREATE TABLE IF NOT EXISTS shares("
    "  record_name BLOB PRIMARY KEY NOT NULL,"
    "  vcard BLOB NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  expires_at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS shares_expires_at ON shares(expires_at);";

int cb_sqlite_run(sqlite3_stmt *statement) {
    int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

int cb_sqlite_exec(sqlite3 *db, const char *sql) {
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int cb_sqlite_fail(cb_sqlite *store, sqlite3 *db, int rc, const char *what) {
    snprintf(store->error, sizeof store->error, "%s: %s (%s)", what, sqlite3_errstr(rc), db ? sqlite3_errmsg(db) : "");
    return rc;
}

int cb_sqlite_connect(const char *path, int durable, cb_sqlite_connection *connection, char *error, size_t error_size) {
    memset(connection, 0, sizeof *connection);
    int rc = sqlite3_open_v2(path, &connection->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc == SQLITE_OK) rc = sqlite3_busy_timeout(connection->db, 60000);
    if (rc == SQLITE_OK) rc = cb_sqlite_exec(connection->db, "PRAGMA journal_mode=WAL");
    if (rc == SQLITE_OK) {
        rc = cb_sqlite_exec(connection->db, durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF");
    }
    if (rc == SQLITE_OK) rc = cb_sqlite_exec(connection->db, schema_sql);
    struct {
        sqlite3_stmt **statement;
        const char *sql;
    } prepared[] = {
        {&connection->begin, "BEGIN IMMEDIATE"},
        {&connection->commit, "COMMIT"},
        {&connection->rollback, "ROLLBACK"},
        {&connection->insert_created,
         "INSERT INTO events(origin, origin_seq, kind, record_name, at, expires_at, vcard) VALUES "
         "(?1, (SELECT IFNULL(MAX(origin_seq), 0) + 1 FROM events WHERE origin = ?1), 1, ?2, ?3, ?4, ?5)"},
        {&connection->insert_share, "INSERT INTO shares(record_name, vcard, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)"},
        {&connection->select_share, "SELECT vcard, created_at, expires_at FROM shares WHERE record_name = ?1"},
        {&connection->select_due, "SELECT record_name, expires_at FROM shares WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2"},
        {&connection->insert_expired,
         "INSERT INTO events(origin, origin_seq, kind, record_name, at, reason) VALUES "
         "(?1, (SELECT IFNULL(MAX(origin_seq), 0) + 1 FROM events WHERE origin = ?1), 2, ?2, ?3, 1)"},
        {&connection->delete_share, "DELETE FROM shares WHERE record_name = ?1"},
    };
    for (size_t i = 0; i < sizeof prepared / sizeof prepared[0] && rc == SQLITE_OK; i++) {
        rc = sqlite3_prepare_v3(connection->db, prepared[i].sql, -1, SQLITE_PREPARE_PERSISTENT, prepared[i].statement, NULL);
    }
    if (rc != SQLITE_OK) {
        snprintf(error, error_size, "opening %s: %s (%s)", path, sqlite3_errstr(rc),
                 connection->db ? sqlite3_errmsg(connection->db) : "");
        cb_sqlite_disconnect(connection);
    }
    return rc;
}

void cb_sqlite_disconnect(cb_sqlite_connection *connection) {
    sqlite3_stmt *statements[] = {connection->begin, connection->commit, connection->rollback,
                                  connection->insert_created, connection->insert_share, connection->select_share,
                                  connection->select_due, connection->insert_expired, connection->delete_share};
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) sqlite3_finalize(statements[i]);
    sqlite3_close(connection->db);
    memset(connection, 0, sizeof *connection);
}

/* Reads the replica id from meta, making one for a new store. */
static int load_replica(cb_sqlite *store) {
    sqlite3 *db = store->main.db;
    sqlite3_stmt *select;
    int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'replica'", -1, &select, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(select);
    if (rc == SQLITE_ROW && sqlite3_column_bytes(select, 0) == 16) {
        memcpy(store->replica, sqlite3_column_blob(select, 0), 16);
        sqlite3_finalize(select);
        return SQLITE_OK;
    }
    sqlite3_finalize(select);
    if (rc != SQLITE_DONE) return rc == SQLITE_ROW ? SQLITE_CORRUPT : rc;
    if (cb_random_name(store->replica) != 0) return SQLITE_ERROR;
    sqlite3_stmt *insert;
    rc = sqlite3_prepare_v2(db, "INSERT INTO meta(key, value) VALUES ('replica', ?1)", -1, &insert, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_blob(insert, 1, store->replica, 16, SQLITE_STATIC);
    rc = cb_sqlite_run(insert);
    sqlite3_finalize(insert);
    return rc;
}

cb_sqlite *cb_sqlite_open(const char *directory, int durable, char *error, size_t error_size) {
    if (mkdir(directory, 0700) != 0 && errno != EEXIST) {
        snprintf(error, error_size, "creating %s: %s", directory, strerror(errno));
        return NULL;
    }
    cb_sqlite *store = calloc(1, sizeof *store);
    if (!store) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    snprintf(store->path, sizeof store->path, "%s/shares.sqlite", directory);
    store->durable = durable;
    if (cb_sqlite_connect(store->path, durable, &store->main, error, error_size) != SQLITE_OK) {
        free(store);
        return NULL;
    }
    int rc = load_replica(store);
    if (rc != SQLITE_OK) {
        snprintf(error, error_size, "reading the replica id of %s: %s", store->path, sqlite3_errstr(rc));
        cb_sqlite_close(store);
        return NULL;
    }
    return store;
}

void cb_sqlite_close(cb_sqlite *store) {
    if (!store) return;
    cb_sqlite_disconnect(&store->main);
    free(store);
}

const char *cb_sqlite_error(const cb_sqlite *store) { return store->error; }

const char *cb_sqlite_version(void) { return sqlite3_libversion(); }
