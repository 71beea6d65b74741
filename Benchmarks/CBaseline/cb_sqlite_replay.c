/* The SQLite store's verify: rebuild the shares table from the events
 * table in a scratch database, then compare the two tables row by row. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cb_sqlite_internal.h"

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *insert, *remove;
} scratch_db;

static int open_scratch(const char *path, scratch_db *scratch) {
    memset(scratch, 0, sizeof *scratch);
    int rc = sqlite3_open_v2(path, &scratch->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        rc = cb_sqlite_exec(scratch->db,
                            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                            "CREATE TABLE shares(record_name BLOB PRIMARY KEY NOT NULL, vcard BLOB NOT NULL,"
                            " created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);"
                            "CREATE INDEX shares_expires_at ON shares(expires_at);");
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(scratch->db,
                                "INSERT OR IGNORE INTO shares(record_name, vcard, created_at, expires_at) "
                                "VALUES (?1, ?2, ?3, ?4)", -1, &scratch->insert, NULL);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(scratch->db, "DELETE FROM shares WHERE record_name = ?1", -1, &scratch->remove, NULL);
    }
    return rc;
}

static void close_scratch(scratch_db *scratch) {
    sqlite3_finalize(scratch->insert);
    sqlite3_finalize(scratch->remove);
    sqlite3_close(scratch->db);
}

/* Folds one events row into the scratch shares table. */
static int fold_row(sqlite3_stmt *row, scratch_db *scratch) {
    int kind = sqlite3_column_int(row, 1);
    const void *name = sqlite3_column_blob(row, 2);
    int name_size = sqlite3_column_bytes(row, 2);
    if (kind == CB_KIND_CREATED && sqlite3_column_type(row, 5) == SQLITE_BLOB) {
        sqlite3_bind_blob(scratch->insert, 1, name, name_size, SQLITE_STATIC);
        sqlite3_bind_blob(scratch->insert, 2, sqlite3_column_blob(row, 5), sqlite3_column_bytes(row, 5), SQLITE_STATIC);
        sqlite3_bind_int64(scratch->insert, 3, sqlite3_column_int64(row, 3));
        sqlite3_bind_int64(scratch->insert, 4, sqlite3_column_int64(row, 4));
        return cb_sqlite_run(scratch->insert);
    }
    if (kind == CB_KIND_EXPIRED) {
        sqlite3_bind_blob(scratch->remove, 1, name, name_size, SQLITE_STATIC);
        return cb_sqlite_run(scratch->remove);
    }
    return SQLITE_OK;
}

/* Reads the events in order and folds them, `chunk` per transaction. */
static int fold(sqlite3 *db, scratch_db *scratch, size_t chunk, cb_progress_fn progress, void *context,
                cb_replay_report *report) {
    sqlite3_stmt *events;
    int rc = sqlite3_prepare_v2(db, "SELECT seq, kind, record_name, at, expires_at, vcard FROM events ORDER BY seq",
                                -1, &events, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_int64 expected = 1;
    size_t pending = 0;
    rc = cb_sqlite_exec(scratch->db, "BEGIN");
    while (rc == SQLITE_OK && (rc = sqlite3_step(events)) == SQLITE_ROW) {
        sqlite3_int64 seq = sqlite3_column_int64(events, 0);
        if (seq != expected) report->sequence_gaps++;
        expected = seq + 1;
        if ((rc = fold_row(events, scratch)) != SQLITE_OK) break;
        if (++pending == chunk) {
            if ((rc = cb_sqlite_exec(scratch->db, "COMMIT; BEGIN")) != SQLITE_OK) break;
            report->events += pending;
            pending = 0;
            if (progress) progress(context, report->events);
        }
    }
    sqlite3_finalize(events);
    if (rc != SQLITE_DONE) return rc;
    if ((rc = cb_sqlite_exec(scratch->db, "COMMIT")) != SQLITE_OK) return rc;
    report->events += pending;
    if (progress) progress(context, report->events);
    return SQLITE_OK;
}

static int blob_order(sqlite3_stmt *a, sqlite3_stmt *b) {
    int size_a = sqlite3_column_bytes(a, 0), size_b = sqlite3_column_bytes(b, 0);
    int common = size_a < size_b ? size_a : size_b;
    int order = common ? memcmp(sqlite3_column_blob(a, 0), sqlite3_column_blob(b, 0), (size_t)common) : 0;
    return order != 0 ? order : size_a - size_b;
}

static int same_row(sqlite3_stmt *a, sqlite3_stmt *b) {
    int size = sqlite3_column_bytes(a, 1);
    return size == sqlite3_column_bytes(b, 1) &&
           (size == 0 || memcmp(sqlite3_column_blob(a, 1), sqlite3_column_blob(b, 1), (size_t)size) == 0) &&
           sqlite3_column_int64(a, 2) == sqlite3_column_int64(b, 2) &&
           sqlite3_column_int64(a, 3) == sqlite3_column_int64(b, 3);
}

/* Walks both shares tables in record-name order side by side. */
static int compare(sqlite3 *stored_db, sqlite3 *rebuilt_db, cb_replay_report *report) {
    const char *sql = "SELECT record_name, vcard, created_at, expires_at FROM shares ORDER BY record_name";
    sqlite3_stmt *left = NULL, *right = NULL;
    int rc = sqlite3_prepare_v2(stored_db, sql, -1, &left, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(rebuilt_db, sql, -1, &right, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(left);
        return rc;
    }
    int a = sqlite3_step(left), b = sqlite3_step(right);
    while (a == SQLITE_ROW || b == SQLITE_ROW) {
        report->entries_compared++;
        int order = a == SQLITE_ROW && b == SQLITE_ROW ? blob_order(left, right) : a == SQLITE_ROW ? -1 : 1;
        if (order == 0) {
            if (!same_row(left, right)) report->mismatches++;
            a = sqlite3_step(left);
            b = sqlite3_step(right);
        } else if (order < 0) {
            report->mismatches++;
            a = sqlite3_step(left);
        } else {
            report->mismatches++;
            b = sqlite3_step(right);
        }
    }
    sqlite3_finalize(left);
    sqlite3_finalize(right);
    return a == SQLITE_DONE && b == SQLITE_DONE ? SQLITE_OK : (a != SQLITE_DONE ? a : b);
}

int cb_sqlite_replay(cb_sqlite *store, const char *scratch_directory, size_t chunk,
                     cb_progress_fn progress, void *context, cb_replay_report *report, uint64_t *elapsed_ns) {
    memset(report, 0, sizeof *report);
    if (chunk == 0) chunk = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/replay.sqlite", scratch_directory);
    uint64_t start = cb_now_ns();
    mkdir(scratch_directory, 0700);
    scratch_db scratch;
    sqlite3 *db = store->main.db;
    int rc = open_scratch(path, &scratch);
    /* One read snapshot of the store for the fold and the comparison. */
    if (rc == SQLITE_OK) rc = cb_sqlite_exec(db, "BEGIN");
    if (rc == SQLITE_OK) rc = fold(db, &scratch, chunk, progress, context, report);
    if (rc == SQLITE_OK) rc = compare(db, scratch.db, report);
    cb_sqlite_exec(db, "COMMIT");
    close_scratch(&scratch);
    unlink(path);
    rmdir(scratch_directory);
    *elapsed_ns = cb_now_ns() - start;
    return rc == SQLITE_OK ? 0 : cb_sqlite_fail(store, db, rc, "replaying the events");
}
