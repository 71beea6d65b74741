/* The measured Redis work: creates, fetches, and the expiry measurement. */

#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cb_redis_internal.h"

/* Connections for `threads` workers: the store's own for one thread,
 * otherwise one new connection each, opened before the clock starts. */
static int open_connections(cb_redis *store, int threads, redisContext ***out) {
    redisContext **connections = calloc((size_t)threads, sizeof *connections);
    if (!connections) return cb_redis_fail(store, "out of memory");
    if (threads == 1) {
        connections[0] = store->main;
    } else {
        for (int t = 0; t < threads; t++) {
            connections[t] = cb_redis_connect(store);
            if (!connections[t]) {
                for (int u = 0; u < t; u++) redisFree(connections[u]);
                free(connections);
                return -1;
            }
        }
    }
    *out = connections;
    return 0;
}

static void close_connections(cb_redis *store, int threads, redisContext **connections) {
    for (int t = 0; t < threads; t++) {
        if (connections[t] != store->main) redisFree(connections[t]);
    }
    free(connections);
}

/* Appends SET name card PX ttl_ms to the connection's output buffer. */
static int append_set(redisContext *context, const uint8_t name[16], const uint8_t *card, size_t size, int64_t ttl_ms) {
    return redisAppendCommand(context, "SET %b %b PX %lld", name, (size_t)16, card, size, (long long)ttl_ms);
}

/* Reads `count` replies of pipelined SETs: each must be +OK. On failure,
 * *failed is the first reply that was not (NULL when none came: then the
 * connection's errstr says why). */
static int read_set_replies(redisContext *context, size_t count, redisReply **failed) {
    *failed = NULL;
    for (size_t i = 0; i < count; i++) {
        redisReply *reply = NULL;
        if (redisGetReply(context, (void **)&reply) != REDIS_OK) return -1;
        if (reply->type != REDIS_REPLY_STATUS || strcmp(reply->str, "OK") != 0) {
            /* Drain the rest, so the connection stays usable for the message. */
            for (size_t j = i + 1; j < count; j++) {
                redisReply *rest = NULL;
                if (redisGetReply(context, (void **)&rest) != REDIS_OK) break;
                freeReplyObject(rest);
            }
            *failed = reply;
            return -1;
        }
        freeReplyObject(reply);
    }
    return 0;
}

typedef struct {
    redisContext *connection;
    const cb_cards *cards;
    size_t first, stride, batch;
    int64_t ttl_ms;
    uint8_t *names_out;
    redisReply *failed;
    int rc;
} create_job;

static int create_range(void *argument) {
    create_job *job = argument;
    redisContext *c = job->connection;
    const cb_cards *cards = job->cards;
    size_t index = job->first;
    while (index < cards->count) {
        size_t sent = 0;
        for (; sent < job->batch && index < cards->count; sent++, index += job->stride) {
            uint8_t *name = job->names_out + 16 * index;
            if (cb_random_name(name) != 0) return job->rc = -1;
            size_t size;
            const uint8_t *card = cb_card(cards, index, &size);
            if (append_set(c, name, card, size, job->ttl_ms) != REDIS_OK) return job->rc = -1;
        }
        if (read_set_replies(c, sent, &job->failed) != 0) return job->rc = -1;
    }
    return 0;
}

int cb_redis_create(cb_redis *store, const cb_cards *cards, size_t batch, int threads, int64_t ttl_ms,
                    uint8_t *names_out, uint64_t *elapsed_ns) {
    if (threads < 1) threads = 1;
    redisContext **connections;
    if (open_connections(store, threads, &connections) != 0) return -1;
    create_job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!jobs) {
        close_connections(store, threads, connections);
        return cb_redis_fail(store, "out of memory");
    }
    for (int t = 0; t < threads; t++) {
        jobs[t] = (create_job){connections[t], cards, (size_t)t, (size_t)threads, batch ? batch : 1, ttl_ms, names_out,
                               NULL, 0};
    }
    uint64_t start = cb_now_ns();
    int rc = cb_run_threads(threads, create_range, jobs, sizeof *jobs);
    *elapsed_ns = cb_now_ns() - start;
    int reported = 0;
    for (int t = 0; t < threads; t++) {
        if (jobs[t].rc != 0 && !reported) {
            cb_redis_reply_fail(store, connections[t], jobs[t].failed, "SET");
            reported = 1;
        } else {
            freeReplyObject(jobs[t].failed);
        }
    }
    free(jobs);
    close_connections(store, threads, connections);
    return rc == 0 ? 0 : -1;
}

typedef struct {
    redisContext *connection;
    const uint8_t *names;
    size_t first, end;
    cb_fetch_tally tally;
    redisReply *failed;
    int rc;
} fetch_job;

/* GET per name: a string is the live card, nil a missing share. */
static int fetch_range(void *argument) {
    fetch_job *job = argument;
    for (size_t i = job->first; i < job->end; i++) {
        redisReply *reply = redisCommand(job->connection, "GET %b", job->names + 16 * i, (size_t)16);
        if (reply && reply->type == REDIS_REPLY_STRING) {
            job->tally.live++;
            job->tally.bytes += reply->len;
            cb_consume((const uint8_t *)reply->str, reply->len);
        } else if (reply && reply->type == REDIS_REPLY_NIL) {
            job->tally.missing++;
        } else {
            job->failed = reply;
            return job->rc = -1;
        }
        freeReplyObject(reply);
    }
    return 0;
}

int cb_redis_fetch(cb_redis *store, const uint8_t *names, size_t count, int threads,
                   cb_fetch_tally *tally, uint64_t *elapsed_ns) {
    if (threads < 1) threads = 1;
    redisContext **connections;
    if (open_connections(store, threads, &connections) != 0) return -1;
    fetch_job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!jobs) {
        close_connections(store, threads, connections);
        return cb_redis_fail(store, "out of memory");
    }
    for (int t = 0; t < threads; t++) {
        jobs[t] = (fetch_job){.connection = connections[t], .names = names,
                              .first = count * (size_t)t / (size_t)threads,
                              .end = count * (size_t)(t + 1) / (size_t)threads};
    }
    uint64_t start = cb_now_ns();
    int rc = cb_run_threads(threads, fetch_range, jobs, sizeof *jobs);
    *elapsed_ns = cb_now_ns() - start;
    memset(tally, 0, sizeof *tally);
    int reported = 0;
    for (int t = 0; t < threads; t++) {
        tally->live += jobs[t].tally.live;
        tally->expired += jobs[t].tally.expired;
        tally->missing += jobs[t].tally.missing;
        tally->bytes += jobs[t].tally.bytes;
        if (jobs[t].rc != 0 && !reported) {
            cb_redis_reply_fail(store, connections[t], jobs[t].failed, "GET");
            reported = 1;
        } else {
            freeReplyObject(jobs[t].failed);
        }
    }
    free(jobs);
    close_connections(store, threads, connections);
    return rc == 0 ? 0 : -1;
}

/* Writes the due keys, each batch's ttl computed as it is sent so that
 * every key falls due at due_ms. */
static int write_due_keys(cb_redis *store, const cb_cards *cards, size_t batch, int64_t due_ms) {
    redisContext *c = store->main;
    uint8_t name[16];
    for (size_t index = 0; index < cards->count;) {
        int64_t ttl_ms = due_ms - cb_redis_wall_ms();
        if (ttl_ms <= 0) {
            return cb_redis_fail(store, "writing the due keys took past the moment they fall due; give them a longer delay");
        }
        size_t sent = 0;
        for (; sent < batch && index < cards->count; sent++, index++) {
            size_t size;
            const uint8_t *card = cb_card(cards, index, &size);
            if (cb_random_name(name) != 0) return cb_redis_fail(store, "getrandom failed");
            if (append_set(c, name, card, size, ttl_ms) != REDIS_OK) return cb_redis_fail(store, "SET: %s", c->errstr);
        }
        redisReply *failed;
        if (read_set_replies(c, sent, &failed) != 0) return cb_redis_reply_fail(store, c, failed, "SET");
    }
    return 0;
}

int cb_redis_expire(cb_redis *store, const cb_cards *cards, size_t batch, int64_t delay_ms, uint64_t deadline_ns,
                    uint64_t *removed, uint64_t *elapsed_ns, uint64_t *written) {
    if (batch == 0) batch = 1;
    long long before, held;
    if (cb_redis_dbsize(store, &before) != 0) return -1;
    /* The keys held were written without fsync (up to a gigabyte at N=1M):
     * sync their files first, so that the sync after the due keys covers
     * only those and fits their delay, which is sized by their count alone.
     * appendfsync stays as it was: with `always`, each batch of due keys
     * would wait for its own fsync. */
    if (cb_redis_sync_files(store) != 0) return -1;
    int64_t due_ms = cb_redis_wall_ms() + delay_ms;
    if (write_due_keys(store, cards, batch, due_ms) != 0) return -1;
    if (cb_redis_make_durable(store) != 0) return -1;
    if (cb_redis_dbsize(store, &held) != 0) return -1;
    if (held != before + (long long)cards->count) {
        return cb_redis_fail(store, "the server holds %lld keys, not the %lld written", held, before + (long long)cards->count);
    }
    if (cb_redis_wall_ms() >= due_ms) {
        return cb_redis_fail(store, "the due keys were not written and synced before they fall due; give them a longer delay");
    }
    int64_t aof_before = cb_redis_aof_bytes(store);
    if (aof_before < 0) return -1;
    struct timespec due = {(time_t)(due_ms / 1000), (long)(due_ms % 1000) * 1000000};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &due, NULL) == EINTR) {}

    uint64_t start = cb_now_ns();
    long long keys = held;
    uint64_t elapsed = 0;
    for (;;) {
        if (cb_redis_dbsize(store, &keys) != 0) return -1;
        elapsed = cb_now_ns() - start;
        if (keys <= before || elapsed >= deadline_ns) break;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    if (keys < before) {
        return cb_redis_fail(store, "%lld keys that were not due disappeared", before - keys);
    }
    int64_t aof_after = cb_redis_aof_bytes(store);
    if (aof_after < 0) return -1;
    *removed = (uint64_t)(held - keys);
    *elapsed_ns = elapsed;
    *written = (uint64_t)(aof_after - aof_before);
    return 0;
}
