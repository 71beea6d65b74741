#ifndef SHARELOG_CB_REDIS_INTERNAL_H
#define SHARELOG_CB_REDIS_INTERNAL_H

/* The Redis baseline's server process and connections. */

#include <hiredis/hiredis.h>
#include <sys/types.h>

#include "cb_internal.h"

struct cb_redis {
    /* The temporary folder of the socket, and the socket in it. */
    char socket_folder[64];
    char socket[96];
    /* The TCP port of 127.0.0.1 it listens on too; 0 for none. */
    int port;
    /* --dir: the AOF's directory. */
    char directory[4096];
    /* The /bin/sh that runs the server, leader of their process group. */
    pid_t shell;
    /* The write end of the shell's lifeline: closing it stops the server. */
    int lifeline;
    /* The connection of the calls made on one thread. */
    redisContext *main;
    char error[512];
};

/* Records a failure in the store's error, printf-style; returns -1. */
int cb_redis_fail(cb_redis *store, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Opens a connection to the store's server; NULL on failure, recorded. */
redisContext *cb_redis_connect(cb_redis *store);

/* Records the failure of a command `what` on `context` (no reply, or an
 * error reply); returns -1. Frees `reply`. */
int cb_redis_reply_fail(cb_redis *store, redisContext *context, redisReply *reply, const char *what);

/* DBSIZE on the main connection into *keys; 0, or -1 (recorded). */
int cb_redis_dbsize(cb_redis *store, long long *keys);

/* The value of the line "`field`:<integer>" of an INFO reply; -1 if none. */
int64_t cb_redis_info_field(const char *info, const char *field);

/* Milliseconds since 1970 by CLOCK_REALTIME, the clock Redis's expiry uses. */
int64_t cb_redis_wall_ms(void);

#endif
