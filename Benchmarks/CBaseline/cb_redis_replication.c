/* Redis replication, the anchor of ShareLog's sync: a master's full sync of
 * a new replica, and how soon a key the master committed is seen on the
 * replica. Every wait polls with a deadline. */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cb_redis_internal.h"

/* The pause between two polls of the replica's INFO during a full sync. */
static const long poll_interval_ns = 500000;

static void pause_between_polls(void) {
    struct timespec pause = {0, poll_interval_ns};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
}

/* INFO of up to three sections on the store's main connection (Redis 7
 * takes several); NULL on failure (recorded). The caller frees the reply. */
static redisReply *info(cb_redis *store, const char *first, const char *second, const char *third) {
    const char *argv[] = {"INFO", first, second, third};
    int argc = 2 + (second != NULL) + (third != NULL);
    redisReply *reply = redisCommandArgv(store->main, argc, argv, NULL);
    if (!reply || reply->type != REDIS_REPLY_STRING) {
        cb_redis_reply_fail(store, store->main, reply, "INFO");
        return NULL;
    }
    return reply;
}

/* Whether the INFO line "`field`:..." reads exactly "`field`:`value`". */
static int info_is(const char *info, const char *field, const char *value) {
    size_t length = strlen(field), value_length = strlen(value);
    for (const char *line = info; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, field, length) == 0 && line[length] == ':') {
            const char *text = line + length + 1;
            return strncmp(text, value, value_length) == 0 && (text[value_length] == '\r' || text[value_length] == '\n' ||
                                                             text[value_length] == 0);
        }
    }
    return 0;
}

/* Sends `command` (no arguments of binary data) and expects +OK. */
static int expect_ok(cb_redis *store, redisContext *context, const char *command) {
    redisReply *reply = redisCommand(context, command);
    if (!reply || reply->type != REDIS_REPLY_STATUS || strcmp(reply->str, "OK") != 0) {
        return cb_redis_reply_fail(store, context, reply, command);
    }
    freeReplyObject(reply);
    return 0;
}

/* VmHWM of process `pid` in KiB: the peak of its resident memory; -1 if
 * unknown. */
static int64_t peak_rss_kib(int64_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld/status", (long long)pid);
    FILE *file = fopen(path, "re");
    if (!file) return -1;
    char line[256];
    long long value = -1;
    while (fgets(line, sizeof line, file)) {
        if (sscanf(line, "VmHWM: %lld kB", &value) == 1) break;
    }
    fclose(file);
    return value;
}

/* The replica before its sync: no keys, not a replica yet, no AOF rewrite
 * running or scheduled. Its count of rewrites and of replication input
 * bytes go to *rewrites and *input. */
static int check_replica_idle(cb_redis *replica, uint64_t deadline_ns, int64_t *rewrites, int64_t *input) {
    long long keys;
    if (cb_redis_dbsize(replica, &keys) != 0) return -1;
    if (keys != 0) return cb_redis_fail(replica, "the replica holds %lld keys before its full sync; start it empty", keys);
    uint64_t start = cb_now_ns();
    for (;;) {
        redisReply *reply = info(replica, "replication", "persistence", "stats");
        if (!reply) return -1;
        int is_master = info_is(reply->str, "role", "master");
        int64_t running = cb_redis_info_field(reply->str, "aof_rewrite_in_progress");
        int64_t scheduled = cb_redis_info_field(reply->str, "aof_rewrite_scheduled");
        *rewrites = cb_redis_info_field(reply->str, "aof_rewrites");
        *input = cb_redis_info_field(reply->str, "total_net_repl_input_bytes");
        freeReplyObject(reply);
        if (!is_master) return cb_redis_fail(replica, "the replica already replicates a master; start a new one");
        if (*rewrites < 0 || *input < 0) {
            return cb_redis_fail(replica, "INFO has no aof_rewrites or total_net_repl_input_bytes: Redis 7 is needed");
        }
        if (running == 0 && scheduled == 0) return 0;
        if (cb_now_ns() - start > deadline_ns) {
            return cb_redis_fail(replica, "the replica's own AOF rewrite did not end within %.1f s", (double)deadline_ns * 1e-9);
        }
        pause_between_polls();
    }
}

int cb_redis_full_sync(cb_redis *master, cb_redis *replica, uint64_t expected_keys, uint64_t deadline_ns,
                       cb_full_sync *result) {
    memset(result, 0, sizeof *result);
    result->replica_peak_rss_kib = -1;
    if (master->port == 0) {
        return cb_redis_fail(replica, "the master listens on no TCP port; start it with cb_redis_start_loopback");
    }
    /* Diskless sync is Redis 7's default, set here so that it is on record;
     * the delay's default, 5 s of waiting for more replicas, is not. */
    if (expect_ok(replica, master->main, "CONFIG SET repl-diskless-sync yes repl-diskless-sync-delay 0") != 0) return -1;
    int64_t rewrites_before, input_before;
    if (check_replica_idle(replica, deadline_ns, &rewrites_before, &input_before) != 0) return -1;

    char command[64];
    snprintf(command, sizeof command, "REPLICAOF 127.0.0.1 %d", master->port);
    uint64_t start = cb_now_ns();
    if (expect_ok(replica, replica->main, command) != 0) return -1;
    int loaded = 0;
    for (;;) {
        redisReply *reply = info(replica, "replication", "persistence", "stats");
        if (!reply) return -1;
        uint64_t now = cb_now_ns();
        const char *text = reply->str;
        if (!loaded && info_is(text, "master_link_status", "up") && cb_redis_info_field(text, "master_sync_in_progress") == 0 &&
            cb_redis_info_field(text, "loading") == 0) {
            int64_t input = cb_redis_info_field(text, "total_net_repl_input_bytes");
            long long keys;
            if (cb_redis_dbsize(replica, &keys) != 0) {
                freeReplyObject(reply);
                return -1;
            }
            if ((uint64_t)keys != expected_keys) {
                freeReplyObject(reply);
                return cb_redis_fail(replica, "the replica holds %lld keys after its full sync, not the %llu expected", keys,
                                     (unsigned long long)expected_keys);
            }
            loaded = 1;
            result->loaded_ns = now - start;
            result->bytes = (uint64_t)(input - input_before);
        }
        /* The sync stopped the replica's AOF and started it again, which
         * rewrites it from the loaded data: durable once a rewrite after
         * the one counted before has ended, and ended well. */
        if (loaded && cb_redis_info_field(text, "aof_rewrites") > rewrites_before &&
            cb_redis_info_field(text, "aof_rewrite_in_progress") == 0 &&
            cb_redis_info_field(text, "aof_rewrite_scheduled") == 0) {
            int ok = info_is(text, "aof_last_bgrewrite_status", "ok") && info_is(text, "aof_last_write_status", "ok");
            freeReplyObject(reply);
            if (!ok) return cb_redis_fail(replica, "the replica's AOF rewrite after its full sync failed; see its redis.log");
            result->persisted_ns = now - start;
            break;
        }
        freeReplyObject(reply);
        if (now - start > deadline_ns) {
            return cb_redis_fail(replica, "the replica's full sync was not %s within %.1f s; see its redis.log",
                                 loaded ? "durable" : "loaded", (double)deadline_ns * 1e-9);
        }
        pause_between_polls();
    }
    redisReply *server = info(replica, "server", NULL, NULL);
    if (!server) return -1;
    int64_t pid = cb_redis_info_field(server->str, "process_id");
    freeReplyObject(server);
    result->replica_peak_rss_kib = pid > 0 ? peak_rss_kib(pid) : -1;
    return 0;
}

/* Polls GET name on the replica until it answers the card; *seen is when. */
static int await_on_replica(cb_redis *replica, const uint8_t name[16], const uint8_t *card, size_t size,
                            uint64_t since, uint64_t deadline_ns, uint64_t *seen) {
    for (;;) {
        redisReply *reply = redisCommand(replica->main, "GET %b", name, (size_t)16);
        uint64_t now = cb_now_ns();
        if (reply && reply->type == REDIS_REPLY_STRING) {
            int same = reply->len == size && memcmp(reply->str, card, size) == 0;
            freeReplyObject(reply);
            if (!same) return cb_redis_fail(replica, "the replica holds another value than the card the master was given");
            *seen = now;
            return 0;
        }
        if (!reply || reply->type != REDIS_REPLY_NIL) return cb_redis_reply_fail(replica, replica->main, reply, "GET on the replica");
        freeReplyObject(reply);
        if (now - since > deadline_ns) {
            return cb_redis_fail(replica, "the replica did not see a key within %.1f s of the master's reply",
                                 (double)deadline_ns * 1e-9);
        }
    }
}

int cb_redis_replication_delays(cb_redis *master, cb_redis *replica, const cb_cards *cards, int64_t ttl_ms,
                                uint64_t deadline_ns, uint8_t *names_out, uint64_t *commit_ns, uint64_t *delay_ns) {
    redisReply *state = info(replica, "replication", NULL, NULL);
    if (!state) return -1;
    int up = info_is(state->str, "master_link_status", "up");
    freeReplyObject(state);
    if (!up) return cb_redis_fail(replica, "the replica's link to its master is not up; run its full sync first");
    for (size_t k = 0; k < cards->count; k++) {
        uint8_t *name = names_out + 16 * k;
        if (cb_random_name(name) != 0) return cb_redis_fail(replica, "getrandom failed");
        size_t size;
        const uint8_t *card = cb_card(cards, k, &size);
        uint64_t sent = cb_now_ns();
        redisReply *reply = redisCommand(master->main, "SET %b %b PX %lld", name, (size_t)16, card, size, (long long)ttl_ms);
        uint64_t committed = cb_now_ns();
        if (!reply || reply->type != REDIS_REPLY_STATUS || strcmp(reply->str, "OK") != 0) {
            return cb_redis_reply_fail(replica, master->main, reply, "SET on the master");
        }
        freeReplyObject(reply);
        uint64_t seen;
        if (await_on_replica(replica, name, card, size, committed, deadline_ns, &seen) != 0) return -1;
        commit_ns[k] = committed - sent;
        delay_ns[k] = seen - committed;
    }
    return 0;
}
