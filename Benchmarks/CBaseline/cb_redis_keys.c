/* What a Redis server holds, asked outside any measurement: its number of
 * keys, and one key's value. */

#define _GNU_SOURCE
#include <string.h>

#include "cb_redis_internal.h"

int64_t cb_redis_key_count(cb_redis *store) {
    long long keys;
    return cb_redis_dbsize(store, &keys) == 0 ? (int64_t)keys : -1;
}

int cb_redis_get(cb_redis *store, const uint8_t name[16], uint8_t *out, size_t capacity, size_t *size) {
    redisReply *reply = redisCommand(store->main, "GET %b", name, (size_t)16);
    if (reply && reply->type == REDIS_REPLY_NIL) {
        freeReplyObject(reply);
        *size = 0;
        return 0;
    }
    if (!reply || reply->type != REDIS_REPLY_STRING) return cb_redis_reply_fail(store, store->main, reply, "GET");
    *size = reply->len;
    if (reply->len > capacity) {
        freeReplyObject(reply);
        return cb_redis_fail(store, "GET: the value of %zu bytes is larger than the buffer of %zu", *size, capacity);
    }
    memcpy(out, reply->str, reply->len);
    freeReplyObject(reply);
    return 1;
}
