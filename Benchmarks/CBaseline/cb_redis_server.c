/* The redis-server of the Redis baseline: started on a Unix socket under a
 * shell that stops it when this process lets go of it or dies, and the
 * connections and server facts the measurements use. */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cb_redis_internal.h"

extern char **environ;

/* Every command waits at most this long for its reply. */
static const struct timeval command_timeout = {120, 0};
/* How long cb_redis_stop waits for the server before killing it. */
static const uint64_t stop_deadline_ns = 60ull * 1000000000ull;

/* The shell: $1 is the socket's folder, the rest the server's command line.
 * Descriptor 3 is the lifeline. The server and a reader of the lifeline run
 * in the background; end of file on the lifeline (this process closed it or
 * died) makes the reader stop the server; when the server has exited, the
 * shell ends the reader and removes the socket's folder. */
static const char *shell_script =
    "folder=$1; shift\n"
    "\"$@\" 3<&- & server=$!\n"
    "{ read -r line <&3; kill -TERM \"$server\"; } & reader=$!\n"
    "wait \"$server\"; status=$?\n"
    "kill \"$reader\" 2>/dev/null\n"
    "rm -rf -- \"$folder\"\n"
    "exit \"$status\"\n";

int cb_redis_fail(cb_redis *store, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(store->error, sizeof store->error, format, arguments);
    va_end(arguments);
    return -1;
}

int64_t cb_redis_wall_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void sleep_ns(uint64_t ns) {
    struct timespec pause = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
}

redisContext *cb_redis_connect(cb_redis *store) {
    redisContext *context = redisConnectUnix(store->socket);
    if (!context || context->err) {
        cb_redis_fail(store, "connecting to redis-server at %s: %s", store->socket,
                      context ? context->errstr : "out of memory");
        redisFree(context);
        return NULL;
    }
    redisSetTimeout(context, command_timeout);
    return context;
}

int cb_redis_reply_fail(cb_redis *store, redisContext *context, redisReply *reply, const char *what) {
    if (!reply) {
        cb_redis_fail(store, "%s: %s", what, context->errstr[0] ? context->errstr : "no reply");
    } else if (reply->type == REDIS_REPLY_ERROR) {
        cb_redis_fail(store, "%s: %s", what, reply->str);
    } else {
        cb_redis_fail(store, "%s: unexpected reply of type %d", what, reply->type);
    }
    freeReplyObject(reply);
    return -1;
}

int cb_redis_dbsize(cb_redis *store, long long *keys) {
    redisReply *reply = redisCommand(store->main, "DBSIZE");
    if (!reply || reply->type != REDIS_REPLY_INTEGER) return cb_redis_reply_fail(store, store->main, reply, "DBSIZE");
    *keys = reply->integer;
    freeReplyObject(reply);
    return 0;
}

/* The last lines of the server's log, on one line, for an error message. */
static void log_tail(const cb_redis *store, char *out, size_t size) {
    char path[4200];
    snprintf(path, sizeof path, "%s/redis.log", store->directory);
    out[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > (off_t)size - 1 ? end - (off_t)size + 1 : 0;
    ssize_t count = pread(fd, out, size - 1, from);
    close(fd);
    out[count > 0 ? count : 0] = 0;
    for (char *c = out; *c; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
}

/* Starts the shell and the server; 0, or -1 with the reason recorded.
 * store->port > 0: the server also listens on 127.0.0.1 at that port. */
static int spawn_server(cb_redis *store, const char *server, int durable) {
    char log_path[4200];
    snprintf(log_path, sizeof log_path, "%s/redis.log", store->directory);
    int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log < 0) return cb_redis_fail(store, "opening %s: %s", log_path, strerror(errno));
    int lifeline[2];
    if (pipe2(lifeline, O_CLOEXEC) != 0) {
        close(log);
        return cb_redis_fail(store, "pipe: %s", strerror(errno));
    }
    char port[16];
    snprintf(port, sizeof port, "%d", store->port);
    const char *argv[] = {
        "/bin/sh", "-c", shell_script, "sharelog-redis", store->socket_folder,
        server, "--port", port, "--unixsocket", store->socket, "--unixsocketperm", "700",
        "--dir", store->directory, "--daemonize", "no",
        "--appendonly", "yes", "--appendfsync", durable ? "always" : "no",
        "--save", "", "--auto-aof-rewrite-percentage", "0",
        /* Without a TCP port the list ends here. */
        store->port > 0 ? "--bind" : NULL, "127.0.0.1", NULL,
    };
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, lifeline[0], 3);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, log, 1);
    posix_spawn_file_actions_adddup2(&actions, log, 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    /* Its own process group: a Ctrl-C meant for the benchmark reaches
     * neither the shell nor the server, which stop through the lifeline. */
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t signals;
    sigemptyset(&signals);
    posix_spawnattr_setsigmask(&attributes, &signals);
    int defaults[] = {SIGCHLD, SIGPIPE, SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) sigaddset(&signals, defaults[i]);
    posix_spawnattr_setsigdefault(&attributes, &signals);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(&store->shell, "/bin/sh", &actions, &attributes, (char *const *)argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(lifeline[0]);
    close(log);
    if (rc != 0) {
        close(lifeline[1]);
        store->shell = 0;
        return cb_redis_fail(store, "starting /bin/sh for redis-server: %s", strerror(rc));
    }
    store->lifeline = lifeline[1];
    return 0;
}

/* Waits until the server answers PING on its socket, at most deadline_ns. */
static int await_server(cb_redis *store, uint64_t deadline_ns) {
    uint64_t start = cb_now_ns();
    for (;;) {
        int status;
        if (waitpid(store->shell, &status, WNOHANG) == store->shell) {
            store->shell = 0;
            char tail[400];
            log_tail(store, tail, sizeof tail);
            return cb_redis_fail(store, "redis-server exited at start (status %d); its log ends: %s",
                                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), tail);
        }
        redisContext *context = redisConnectUnix(store->socket);
        if (context && !context->err) {
            redisSetTimeout(context, command_timeout);
            redisReply *reply = redisCommand(context, "PING");
            int ready = reply && reply->type == REDIS_REPLY_STATUS && strcmp(reply->str, "PONG") == 0;
            freeReplyObject(reply);
            if (ready) {
                store->main = context;
                return 0;
            }
        }
        redisFree(context);
        if (cb_now_ns() - start > deadline_ns) {
            char tail[400];
            log_tail(store, tail, sizeof tail);
            return cb_redis_fail(store, "redis-server did not answer on %s within %.1f s; its log ends: %s",
                                 store->socket, (double)deadline_ns * 1e-9, tail);
        }
        sleep_ns(5000000);
    }
}

/* cb_redis_start, listening on 127.0.0.1:port too when port > 0. */
static cb_redis *start_on_port(const char *server, const char *directory, int durable, int port, uint64_t deadline_ns,
                               char *error, size_t error_size) {
    if (mkdir(directory, 0700) != 0 && errno != EEXIST) {
        snprintf(error, error_size, "creating %s: %s", directory, strerror(errno));
        return NULL;
    }
    cb_redis *store = calloc(1, sizeof *store);
    if (!store) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    store->lifeline = -1;
    store->port = port;
    snprintf(store->directory, sizeof store->directory, "%s", directory);
    /* A short fixed folder: a socket's path must fit in 108 bytes, which a
     * store's own directory under $TMPDIR may not. */
    snprintf(store->socket_folder, sizeof store->socket_folder, "/tmp/sharelog-redis-XXXXXX");
    if (!mkdtemp(store->socket_folder)) {
        snprintf(error, error_size, "creating a folder for the socket under /tmp: %s", strerror(errno));
        free(store);
        return NULL;
    }
    snprintf(store->socket, sizeof store->socket, "%s/redis.sock", store->socket_folder);
    if (spawn_server(store, server, durable) != 0) {
        snprintf(error, error_size, "%s", store->error);
        rmdir(store->socket_folder);
        free(store);
        return NULL;
    }
    if (await_server(store, deadline_ns) != 0) {
        snprintf(error, error_size, "%s", store->error);
        cb_redis_stop(store);
        return NULL;
    }
    return store;
}

cb_redis *cb_redis_start(const char *server, const char *directory, int durable, uint64_t deadline_ns,
                         char *error, size_t error_size) {
    return start_on_port(server, directory, durable, 0, deadline_ns, error, error_size);
}

/* A TCP port of 127.0.0.1 that nothing listens on now: the kernel's pick
 * for a socket bound to port 0, which is then closed. 0 on failure. */
static int free_loopback_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    int port = 0, failure = 0;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) == 0 &&
        getsockname(fd, (struct sockaddr *)&address, &length) == 0) {
        port = ntohs(address.sin_port);
    } else {
        failure = errno;
    }
    close(fd);
    errno = failure;
    return port;
}

cb_redis *cb_redis_start_loopback(const char *server, const char *directory, int durable, uint64_t deadline_ns,
                                  char *error, size_t error_size) {
    /* Another process may take the port between its pick and the server's
     * bind: then the server exits at start saying so in its log, which the
     * error quotes, and a new port is tried. */
    for (int attempt = 0;; attempt++) {
        int port = free_loopback_port();
        if (port == 0) {
            snprintf(error, error_size, "finding a free TCP port of 127.0.0.1: %s", strerror(errno));
            return NULL;
        }
        cb_redis *store = start_on_port(server, directory, durable, port, deadline_ns, error, error_size);
        if (store || attempt == 2 || !strstr(error, "Address already in use")) return store;
    }
}

int cb_redis_port(const cb_redis *store) { return store->port; }

void cb_redis_stop(cb_redis *store) {
    if (!store) return;
    redisFree(store->main);
    if (store->lifeline >= 0) close(store->lifeline);
    if (store->shell > 0) {
        uint64_t start = cb_now_ns();
        int status;
        pid_t done;
        while ((done = waitpid(store->shell, &status, WNOHANG)) == 0 && cb_now_ns() - start < stop_deadline_ns) {
            sleep_ns(1000000);
        }
        if (done == 0) {
            kill(-store->shell, SIGKILL);
            while (waitpid(store->shell, &status, 0) < 0 && errno == EINTR) {}
        }
    }
    /* Gone already when the shell removed it; left when it was killed. */
    unlink(store->socket);
    rmdir(store->socket_folder);
    free(store);
}

const char *cb_redis_error(const cb_redis *store) { return store->error; }

int cb_redis_sync_files(cb_redis *store) {
    char aof[4200];
    snprintf(aof, sizeof aof, "%s/appendonlydir", store->directory);
    int rc = cb_fsync_directory(aof);
    if (rc == 0) rc = cb_fsync_directory(store->directory);
    if (rc != 0) return cb_redis_fail(store, "fsync of %s: %s", aof, strerror(rc));
    return 0;
}

int cb_redis_make_durable(cb_redis *store) {
    if (cb_redis_sync_files(store) != 0) return -1;
    redisReply *reply = redisCommand(store->main, "CONFIG SET appendfsync always");
    if (!reply || reply->type != REDIS_REPLY_STATUS) {
        return cb_redis_reply_fail(store, store->main, reply, "CONFIG SET appendfsync always");
    }
    freeReplyObject(reply);
    return 0;
}

int64_t cb_redis_info_field(const char *info, const char *field) {
    size_t length = strlen(field);
    const char *line = info;
    while (line) {
        if (strncmp(line, field, length) == 0 && line[length] == ':') return strtoll(line + length + 1, NULL, 10);
        line = strchr(line, '\n');
        if (line) line++;
    }
    return -1;
}

int64_t cb_redis_memory(cb_redis *store) {
    redisReply *reply = redisCommand(store->main, "INFO memory");
    if (!reply || reply->type != REDIS_REPLY_STRING) {
        cb_redis_reply_fail(store, store->main, reply, "INFO memory");
        return -1;
    }
    int64_t used = cb_redis_info_field(reply->str, "used_memory");
    int64_t clients = cb_redis_info_field(reply->str, "mem_clients_normal");
    freeReplyObject(reply);
    if (used < 0 || clients < 0) {
        cb_redis_fail(store, "INFO memory has no used_memory or mem_clients_normal");
        return -1;
    }
    return used - clients;
}

int64_t cb_redis_aof_bytes(cb_redis *store) {
    char aof[4200];
    snprintf(aof, sizeof aof, "%s/appendonlydir", store->directory);
    DIR *dir = opendir(aof);
    if (!dir) {
        cb_redis_fail(store, "opening %s: %s", aof, strerror(errno));
        return -1;
    }
    int64_t total = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        struct stat info;
        if (fstatat(dirfd(dir), entry->d_name, &info, 0) == 0 && S_ISREG(info.st_mode)) total += info.st_size;
    }
    closedir(dir);
    return total;
}

#define CB_STRING(x) #x
#define CB_VERSION(major, minor, patch) CB_STRING(major) "." CB_STRING(minor) "." CB_STRING(patch)

const char *cb_hiredis_version(void) { return CB_VERSION(HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH); }
