/* The measured SQLite work: creates, fetches, the chunked-delete sweep and
 * the cold fetch. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_sqlite_internal.h"

/* Connections for `threads` workers: the store's own for one thread,
 * otherwise one new connection each, opened before the clock starts. */
static int open_connections(cb_sqlite *store, int threads, cb_sqlite_connection **out) {
    if (threads <= 1) {
        *out = &store->main;
        return SQLITE_OK;
    }
    cb_sqlite_connection *connections = calloc((size_t)threads, sizeof *connections);
    if (!connections) return cb_sqlite_fail(store, NULL, SQLITE_NOMEM, "connections");
    for (int t = 0; t < threads; t++) {
        if (cb_sqlite_connect(store->path, store->durable, &connections[t], store->error, sizeof store->error) != SQLITE_OK) {
            for (int u = 0; u < t; u++) cb_sqlite_disconnect(&connections[u]);
            free(connections);
            return SQLITE_CANTOPEN;
        }
    }
    *out = connections;
    return SQLITE_OK;
}

static void close_connections(cb_sqlite *store, int threads, cb_sqlite_connection *connections) {
    if (connections == &store->main) return;
    for (int t = 0; t < threads; t++) cb_sqlite_disconnect(&connections[t]);
    free(connections);
}

typedef struct {
    cb_sqlite_connection *connection;
    const uint8_t *replica;
    const cb_cards *cards;
    size_t first, stride, batch;
    int64_t created_ms, ttl_ms;
    uint8_t *names_out;
    int rc;
} create_job;

/* One share: its shareCreated event, then its row. */
static int insert_share(cb_sqlite_connection *c, const uint8_t *replica, const uint8_t name[16],
                        const uint8_t *vcard, size_t size, int64_t created_ms, int64_t expires_ms) {
    sqlite3_bind_blob(c->insert_created, 1, replica, 16, SQLITE_STATIC);
    sqlite3_bind_blob(c->insert_created, 2, name, 16, SQLITE_STATIC);
    sqlite3_bind_int64(c->insert_created, 3, created_ms);
    sqlite3_bind_int64(c->insert_created, 4, expires_ms);
    sqlite3_bind_blob(c->insert_created, 5, vcard, (int)size, SQLITE_STATIC);
    int rc = cb_sqlite_run(c->insert_created);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_blob(c->insert_share, 1, name, 16, SQLITE_STATIC);
    sqlite3_bind_blob(c->insert_share, 2, vcard, (int)size, SQLITE_STATIC);
    sqlite3_bind_int64(c->insert_share, 3, created_ms);
    sqlite3_bind_int64(c->insert_share, 4, expires_ms);
    return cb_sqlite_run(c->insert_share);
}

static int create_range(void *argument) {
    create_job *job = argument;
    cb_sqlite_connection *c = job->connection;
    const cb_cards *cards = job->cards;
    size_t index = job->first;
    while (index < cards->count) {
        int rc = cb_sqlite_run(c->begin);
        for (size_t n = 0; rc == SQLITE_OK && n < job->batch && index < cards->count; n++, index += job->stride) {
            uint8_t *name = job->names_out + 16 * index;
            if (cb_random_name(name) != 0) {
                rc = SQLITE_ERROR;
                break;
            }
            size_t size;
            const uint8_t *vcard = cb_card(cards, index, &size);
            rc = insert_share(c, job->replica, name, vcard, size, job->created_ms, job->created_ms + job->ttl_ms);
        }
        if (rc == SQLITE_OK) rc = cb_sqlite_run(c->commit);
        if (rc != SQLITE_OK) {
            cb_sqlite_run(c->rollback);
            return job->rc = rc;
        }
    }
    return SQLITE_OK;
}

int cb_sqlite_create(cb_sqlite *store, const cb_cards *cards, size_t batch, int threads,
                     int64_t created_ms, int64_t ttl_ms, uint8_t *names_out, uint64_t *elapsed_ns) {
    if (threads < 1) threads = 1;
    cb_sqlite_connection *connections;
    int rc = open_connections(store, threads, &connections);
    if (rc != SQLITE_OK) return rc;
    create_job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!jobs) {
        close_connections(store, threads, connections);
        return cb_sqlite_fail(store, NULL, SQLITE_NOMEM, "cb_sqlite_create");
    }
    for (int t = 0; t < threads; t++) {
        jobs[t] = (create_job){&connections[t], store->replica, cards, (size_t)t, (size_t)threads,
                               batch ? batch : 1, created_ms, ttl_ms, names_out, 0};
    }
    uint64_t start = cb_now_ns();
    rc = cb_run_threads(threads, create_range, jobs, sizeof *jobs);
    *elapsed_ns = cb_now_ns() - start;
    for (int t = 0; t < threads && rc != SQLITE_OK; t++) {
        if (jobs[t].rc != SQLITE_OK) {
            cb_sqlite_fail(store, connections[t].db, jobs[t].rc, "creating a share");
            break;
        }
    }
    free(jobs);
    close_connections(store, threads, connections);
    return rc;
}

/* What a fetch by record name answers at now_ms; a live card is copied out. */
static int fetch_one(sqlite3_stmt *select, const uint8_t *name, int64_t now_ms, cb_fetch_tally *tally) {
    sqlite3_bind_blob(select, 1, name, 16, SQLITE_STATIC);
    int rc = sqlite3_step(select);
    if (rc == SQLITE_DONE) {
        tally->missing++;
        rc = SQLITE_OK;
    } else if (rc == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (sqlite3_column_int64(select, 2) <= now_ms) {
            tally->expired++;
        } else {
            const uint8_t *vcard = sqlite3_column_blob(select, 0);
            size_t size = (size_t)sqlite3_column_bytes(select, 0);
            uint8_t *copy = malloc(size ? size : 1);
            if (!copy) {
                rc = SQLITE_NOMEM;
            } else {
                memcpy(copy, vcard, size);
                tally->live++;
                tally->bytes += size;
                cb_consume(copy, size);
                free(copy);
            }
        }
    }
    sqlite3_reset(select);
    return rc;
}

typedef struct {
    sqlite3_stmt *select;
    const uint8_t *names;
    size_t first, end;
    int64_t now_ms;
    cb_fetch_tally tally;
    int rc;
} fetch_job;

static int fetch_range(void *argument) {
    fetch_job *job = argument;
    for (size_t i = job->first; i < job->end; i++) {
        int rc = fetch_one(job->select, job->names + 16 * i, job->now_ms, &job->tally);
        if (rc != SQLITE_OK) return job->rc = rc;
    }
    return SQLITE_OK;
}

int cb_sqlite_fetch(cb_sqlite *store, const uint8_t *names, size_t count, int threads, int64_t now_ms,
                    cb_fetch_tally *tally, uint64_t *elapsed_ns) {
    if (threads < 1) threads = 1;
    cb_sqlite_connection *connections;
    int rc = open_connections(store, threads, &connections);
    if (rc != SQLITE_OK) return rc;
    fetch_job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!jobs) {
        close_connections(store, threads, connections);
        return cb_sqlite_fail(store, NULL, SQLITE_NOMEM, "cb_sqlite_fetch");
    }
    for (int t = 0; t < threads; t++) {
        jobs[t] = (fetch_job){.select = connections[t].select_share, .names = names, .now_ms = now_ms,
                              .first = count * (size_t)t / (size_t)threads,
                              .end = count * (size_t)(t + 1) / (size_t)threads};
    }
    uint64_t start = cb_now_ns();
    rc = cb_run_threads(threads, fetch_range, jobs, sizeof *jobs);
    *elapsed_ns = cb_now_ns() - start;
    memset(tally, 0, sizeof *tally);
    for (int t = 0; t < threads; t++) {
        tally->live += jobs[t].tally.live;
        tally->expired += jobs[t].tally.expired;
        tally->missing += jobs[t].tally.missing;
        tally->bytes += jobs[t].tally.bytes;
        if (jobs[t].rc != SQLITE_OK) cb_sqlite_fail(store, connections[t].db, jobs[t].rc, "fetching a share");
    }
    free(jobs);
    close_connections(store, threads, connections);
    return rc;
}

/* One chunk in one transaction: the first `batch` due shares by the
 * expires_at index; for each, an expiry event, then its row deleted. */
static int sweep_chunk(cb_sqlite *store, int64_t now_ms, size_t batch, uint8_t *due, size_t *expired) {
    cb_sqlite_connection *c = &store->main;
    size_t found = 0;
    int rc = cb_sqlite_run(c->begin);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(c->select_due, 1, now_ms);
        sqlite3_bind_int64(c->select_due, 2, (sqlite3_int64)batch);
        while ((rc = sqlite3_step(c->select_due)) == SQLITE_ROW && found < batch) {
            if (sqlite3_column_bytes(c->select_due, 0) != 16) continue;
            memcpy(due + 24 * found, sqlite3_column_blob(c->select_due, 0), 16);
            cb_put_be64(due + 24 * found + 16, (uint64_t)sqlite3_column_int64(c->select_due, 1));
            found++;
        }
        sqlite3_reset(c->select_due);
        rc = rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
    }
    for (size_t i = 0; i < found && rc == SQLITE_OK; i++) {
        const uint8_t *name = due + 24 * i;
        sqlite3_bind_blob(c->insert_expired, 1, store->replica, 16, SQLITE_STATIC);
        sqlite3_bind_blob(c->insert_expired, 2, name, 16, SQLITE_STATIC);
        sqlite3_bind_int64(c->insert_expired, 3, (sqlite3_int64)cb_get_be64(name + 16));
        rc = cb_sqlite_run(c->insert_expired);
        if (rc == SQLITE_OK) {
            sqlite3_bind_blob(c->delete_share, 1, name, 16, SQLITE_STATIC);
            rc = cb_sqlite_run(c->delete_share);
        }
    }
    if (rc == SQLITE_OK) rc = cb_sqlite_run(c->commit);
    if (rc != SQLITE_OK) {
        cb_sqlite_run(c->rollback);
        return cb_sqlite_fail(store, c->db, rc, "sweeping");
    }
    *expired = found;
    return SQLITE_OK;
}

int cb_sqlite_sweep(cb_sqlite *store, int64_t now_ms, size_t batch, uint64_t *expired, uint64_t *elapsed_ns) {
    if (batch == 0) batch = 1;
    uint8_t *due = malloc(24 * batch);
    if (!due) return cb_sqlite_fail(store, NULL, SQLITE_NOMEM, "cb_sqlite_sweep");
    *expired = 0;
    uint64_t start = cb_now_ns();
    int rc;
    size_t found;
    do {
        found = 0;
        rc = sweep_chunk(store, now_ms, batch, due, &found);
        *expired += found;
    } while (rc == SQLITE_OK && found == batch);
    *elapsed_ns = cb_now_ns() - start;
    free(due);
    return rc;
}

int cb_sqlite_cold_fetch(const char *directory, const uint8_t name[16], int64_t now_ms, char *error, size_t error_size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/shares.sqlite", directory);
    sqlite3 *db;
    sqlite3_stmt *select = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(db, "SELECT vcard, created_at, expires_at FROM shares WHERE record_name = ?1", -1,
                                &select, NULL);
    }
    cb_fetch_tally tally = {0, 0, 0, 0};
    if (rc == SQLITE_OK) rc = fetch_one(select, name, now_ms, &tally);
    if (rc != SQLITE_OK) snprintf(error, error_size, "fetching from %s: %s", path, sqlite3_errstr(rc));
    sqlite3_finalize(select);
    sqlite3_close(db);
    if (rc != SQLITE_OK) return -1;
    return tally.live ? 0 : tally.expired ? 1 : 2;
}
