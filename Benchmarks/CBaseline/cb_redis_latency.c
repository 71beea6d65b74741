/* Redis GET at concurrency, every fetch timed: the anchor of the clip
 * fetches a ShareLog server answers. */

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_redis_internal.h"

/* Every command of a worker waits at most this long for its reply. */
static const struct timeval reply_timeout = {120, 0};

typedef struct {
    const char *socket;
    int connection_per_fetch;
    /* The persistent connection; NULL with connection_per_fetch. */
    redisContext *connection;
    const uint8_t *names;
    size_t first, end;
    uint64_t *latencies_ns;
    cb_fetch_tally tally;
    char error[256];
    int rc;
} latency_job;

/* A connection to `socket`, or NULL with the reason in error[size]. Not
 * cb_redis_connect: workers must not share the store's error. */
static redisContext *connect_to(const char *socket, char *error, size_t size) {
    redisContext *context = redisConnectUnix(socket);
    if (!context || context->err) {
        snprintf(error, size, "connecting to redis-server at %s: %s", socket, context ? context->errstr : "out of memory");
        redisFree(context);
        return NULL;
    }
    redisSetTimeout(context, reply_timeout);
    return context;
}

/* GET name on `context` into the job's tally; 0, or -1 with the job's error. */
static int get(latency_job *job, redisContext *context, const uint8_t *name) {
    redisReply *reply = redisCommand(context, "GET %b", name, (size_t)16);
    if (reply && reply->type == REDIS_REPLY_STRING) {
        job->tally.live++;
        job->tally.bytes += reply->len;
        cb_consume((const uint8_t *)reply->str, reply->len);
    } else if (reply && reply->type == REDIS_REPLY_NIL) {
        job->tally.missing++;
    } else {
        snprintf(job->error, sizeof job->error, "GET: %s",
                 !reply ? (context->errstr[0] ? context->errstr : "no reply")
                 : reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
        freeReplyObject(reply);
        return -1;
    }
    freeReplyObject(reply);
    return 0;
}

static int latency_range(void *argument) {
    latency_job *job = argument;
    for (size_t i = job->first; i < job->end; i++) {
        uint64_t start = cb_now_ns();
        if (job->connection_per_fetch) {
            redisContext *context = connect_to(job->socket, job->error, sizeof job->error);
            if (!context) return job->rc = -1;
            int rc = get(job, context, job->names + 16 * i);
            redisFree(context);
            if (rc != 0) return job->rc = -1;
        } else if (get(job, job->connection, job->names + 16 * i) != 0) {
            return job->rc = -1;
        }
        job->latencies_ns[i] = cb_now_ns() - start;
    }
    return 0;
}

int cb_redis_fetch_latencies(cb_redis *store, const uint8_t *names, size_t count, int threads, int connection_per_fetch,
                             uint64_t *latencies_ns, cb_fetch_tally *tally, uint64_t *elapsed_ns) {
    if (threads < 1) threads = 1;
    latency_job *jobs = calloc((size_t)threads, sizeof *jobs);
    if (!jobs) return cb_redis_fail(store, "out of memory");
    int opened = 1;
    for (int t = 0; t < threads && opened; t++) {
        jobs[t] = (latency_job){.socket = store->socket, .connection_per_fetch = connection_per_fetch, .names = names,
                                .first = count * (size_t)t / (size_t)threads,
                                .end = count * (size_t)(t + 1) / (size_t)threads, .latencies_ns = latencies_ns};
        if (!connection_per_fetch) {
            jobs[t].connection = connect_to(store->socket, jobs[t].error, sizeof jobs[t].error);
            if (!jobs[t].connection) {
                cb_redis_fail(store, "%s", jobs[t].error);
                opened = 0;
            }
        }
    }
    int rc = -1;
    if (opened) {
        uint64_t start = cb_now_ns();
        rc = cb_run_threads(threads, latency_range, jobs, sizeof *jobs);
        *elapsed_ns = cb_now_ns() - start;
        if (rc != 0) cb_redis_fail(store, "starting %d threads failed", threads);
        /* A worker's own failure says more: it replaces that message. */
        for (int t = 0; t < threads; t++) {
            if (jobs[t].rc != 0) {
                cb_redis_fail(store, "%s", jobs[t].error);
                break;
            }
        }
    }
    memset(tally, 0, sizeof *tally);
    for (int t = 0; t < threads; t++) {
        tally->live += jobs[t].tally.live;
        tally->missing += jobs[t].tally.missing;
        tally->bytes += jobs[t].tally.bytes;
        redisFree(jobs[t].connection);
    }
    free(jobs);
    return rc == 0 ? 0 : -1;
}
