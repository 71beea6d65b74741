/* The floor of sync between two processes: bytes copied through a
 * Unix-domain socket to a forked child, and small messages it echoes. The
 * child calls only async-signal-safe functions (read, write, _exit): the
 * parent may run other threads, whose locks a forked child must not touch. */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cb_internal.h"

enum { COPY_WRITE = 64 * 1024, MESSAGE_MAX = 4096 };

/* How long the parent waits for any one reply of the child. */
static const struct timeval reply_timeout = {60, 0};

static int fail(char *error, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *error, size_t size, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, size, format, arguments);
    va_end(arguments);
    return -1;
}

/* Writes all of bytes[size] to fd in the child; 0, or -1. */
static int child_write_all(int fd, const uint8_t *bytes, size_t size) {
    while (size > 0) {
        ssize_t written = write(fd, bytes, size);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        bytes += written;
        size -= (size_t)written;
    }
    return 0;
}

/* The copy's child: counts the bytes it reads into buffer[COPY_WRITE]
 * until end of file, then answers their number, 8 bytes big-endian. */
static void copy_child(int fd, uint8_t *buffer) {
    uint64_t count = 0;
    for (;;) {
        ssize_t got = read(fd, buffer, COPY_WRITE);
        if (got > 0) {
            count += (uint64_t)got;
        } else if (got == 0) {
            break;
        } else if (errno != EINTR) {
            _exit(2);
        }
    }
    uint8_t answer[8];
    cb_put_be64(answer, count);
    _exit(child_write_all(fd, answer, sizeof answer) == 0 ? 0 : 3);
}

/* The round trips' child: echoes each message of `size` bytes, read into
 * message[size], until end of file between two messages. */
static void echo_child(int fd, uint8_t *message, size_t size) {
    for (;;) {
        size_t have = 0;
        while (have < size) {
            ssize_t got = read(fd, message + have, size - have);
            if (got == 0 && have == 0) _exit(0);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) _exit(2);
            have += (size_t)got;
        }
        if (child_write_all(fd, message, size) != 0) _exit(3);
    }
}

/* What a child does with its end of the socket: serve(fd, buffer, size),
 * with a buffer the parent allocated (the child must not call malloc). */
typedef void (*serve_fn)(int fd, uint8_t *buffer, size_t size);

/* A socket pair and a child serving one end with `serve`; the parent's end
 * in *fd (with a receive timeout) and the child in *child. */
static int start_child(int *fd, pid_t *child, serve_fn serve, uint8_t *buffer, size_t buffer_size, char *error,
                       size_t size) {
    int pair[2];
    /* Close-on-exec: a process another thread spawns meanwhile must not
     * hold an end, or the child would never read end of file. */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        return fail(error, size, "socketpair: %s", strerror(errno));
    }
    if (setsockopt(pair[0], SOL_SOCKET, SO_RCVTIMEO, &reply_timeout, sizeof reply_timeout) != 0) {
        int failure = errno;
        close(pair[0]);
        close(pair[1]);
        return fail(error, size, "setsockopt SO_RCVTIMEO: %s", strerror(failure));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int failure = errno;
        close(pair[0]);
        close(pair[1]);
        return fail(error, size, "fork: %s", strerror(failure));
    }
    if (pid == 0) {
        close(pair[0]);
        serve(pair[1], buffer, buffer_size);
        _exit(0);
    }
    close(pair[1]);
    *fd = pair[0];
    *child = pid;
    return 0;
}

/* Closes the parent's end and reaps the child: killed first when
 * `failed`, else it must have exited 0. Returns `failed` or the child's
 * failure. */
static int finish_child(int fd, pid_t child, int failed, char *error, size_t size) {
    close(fd);
    if (failed) kill(child, SIGKILL);
    int status;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) return failed ? -1 : fail(error, size, "waitpid: %s", strerror(errno));
    }
    if (failed) return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return fail(error, size, "the socket anchor's child process failed (status %d)",
                    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
    return 0;
}

/* Sends all of bytes[count]; 0, or an errno value. */
static int send_all(int fd, const uint8_t *bytes, size_t count) {
    while (count > 0) {
        ssize_t sent = send(fd, bytes, count, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent < 0) return errno;
        bytes += sent;
        count -= (size_t)sent;
    }
    return 0;
}

/* Receives exactly bytes[count]; 0, or an errno value (EPIPE for end of
 * file, EAGAIN for the receive timeout). */
static int receive_all(int fd, uint8_t *bytes, size_t count) {
    while (count > 0) {
        ssize_t got = recv(fd, bytes, count, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno;
        if (got == 0) return EPIPE;
        bytes += got;
        count -= (size_t)got;
    }
    return 0;
}

static void serve_copy(int fd, uint8_t *buffer, size_t size) {
    (void)size;
    copy_child(fd, buffer);
}

static void serve_echo(int fd, uint8_t *buffer, size_t size) { echo_child(fd, buffer, size); }

int cb_socket_copy(uint64_t bytes, uint64_t *received, uint64_t *elapsed_ns, char *error, size_t error_size) {
    /* The parent's writes, then the child's reads. */
    uint8_t *blocks = malloc(2 * COPY_WRITE);
    if (!blocks) return fail(error, error_size, "out of memory");
    for (size_t i = 0; i < COPY_WRITE; i++) blocks[i] = (uint8_t)(i * 131u + 7u);
    int fd;
    pid_t child;
    if (start_child(&fd, &child, serve_copy, blocks + COPY_WRITE, COPY_WRITE, error, error_size) != 0) {
        free(blocks);
        return -1;
    }
    uint64_t start = cb_now_ns();
    int rc = 0;
    for (uint64_t left = bytes; left > 0 && rc == 0;) {
        size_t chunk = left < COPY_WRITE ? (size_t)left : COPY_WRITE;
        rc = send_all(fd, blocks, chunk);
        left -= chunk;
    }
    if (rc == 0 && shutdown(fd, SHUT_WR) != 0) rc = errno;
    uint8_t answer[8];
    if (rc == 0) rc = receive_all(fd, answer, sizeof answer);
    uint64_t end = cb_now_ns();
    free(blocks);
    if (rc != 0) {
        fail(error, error_size, "copying through the socket: %s", strerror(rc));
        return finish_child(fd, child, 1, error, error_size);
    }
    *received = cb_get_be64(answer);
    *elapsed_ns = end - start;
    return finish_child(fd, child, 0, error, error_size);
}

int cb_socket_round_trips(size_t rounds, size_t message_bytes, uint64_t *round_ns, char *error, size_t error_size) {
    if (message_bytes < 8 || message_bytes > MESSAGE_MAX) {
        return fail(error, error_size, "a message of %zu bytes: give 8 to %d", message_bytes, MESSAGE_MAX);
    }
    uint8_t message[MESSAGE_MAX], echo[MESSAGE_MAX], child_buffer[MESSAGE_MAX];
    memset(message, 0x5a, message_bytes);
    int fd;
    pid_t child;
    if (start_child(&fd, &child, serve_echo, child_buffer, message_bytes, error, error_size) != 0) return -1;
    for (size_t round = 0; round < rounds; round++) {
        /* Each message carries its round, so a stale or lost echo shows. */
        cb_put_be64(message, round);
        uint64_t start = cb_now_ns();
        int rc = send_all(fd, message, message_bytes);
        if (rc == 0) rc = receive_all(fd, echo, message_bytes);
        uint64_t end = cb_now_ns();
        if (rc != 0) {
            fail(error, error_size, "round trip %zu through the socket: %s", round, strerror(rc));
            return finish_child(fd, child, 1, error, error_size);
        }
        if (memcmp(echo, message, message_bytes) != 0) {
            fail(error, error_size, "round trip %zu: the child echoed other bytes than it was sent", round);
            return finish_child(fd, child, 1, error, error_size);
        }
        round_ns[round] = end - start;
    }
    return finish_child(fd, child, 0, error, error_size);
}
