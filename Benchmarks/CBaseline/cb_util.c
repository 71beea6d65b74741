/* Clocks, random names, threads and process helpers for the baselines. */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cb_internal.h"

extern char **environ;

/* Atomic: fetch threads call cb_consume concurrently. */
static _Atomic uint8_t consumed;

void cb_consume(const uint8_t *bytes, size_t size) {
    if (size > 0) atomic_store_explicit(&consumed, (uint8_t)(bytes[0] ^ bytes[size - 1]), memory_order_relaxed);
}

uint64_t cb_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

int cb_random_name(uint8_t name[16]) {
    if (getrandom(name, 16, 0) != 16) return -1;
    name[6] = (uint8_t)((name[6] & 0x0f) | 0x40);
    name[8] = (uint8_t)((name[8] & 0x3f) | 0x80);
    return 0;
}

typedef struct {
    int (*body)(void *);
    void *context;
    int result;
} thread_slot;

static void *thread_main(void *argument) {
    thread_slot *slot = argument;
    slot->result = slot->body(slot->context);
    return NULL;
}

int cb_run_threads(int threads, int (*body)(void *), void *contexts, size_t context_size) {
    if (threads <= 1) return body(contexts);
    thread_slot *slots = calloc((size_t)threads, sizeof *slots);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    if (!slots || !ids) {
        free(slots);
        free(ids);
        return ENOMEM;
    }
    int started = 0, result = 0;
    for (; started < threads; started++) {
        slots[started] = (thread_slot){body, (char *)contexts + context_size * (size_t)started, 0};
        if (pthread_create(&ids[started], NULL, thread_main, &slots[started]) != 0) {
            result = EAGAIN;
            break;
        }
    }
    for (int i = 0; i < started; i++) {
        pthread_join(ids[i], NULL);
        if (result == 0) result = slots[i].result;
    }
    free(slots);
    free(ids);
    return result;
}

int cb_fsync_directory(const char *directory) {
    DIR *dir = opendir(directory);
    if (!dir) return errno;
    int result = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", directory, entry->d_name);
        struct stat info;
        if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) continue;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0) result = errno;
        if (fd >= 0) close(fd);
    }
    if (fsync(dirfd(dir)) != 0 && result == 0) result = errno;
    closedir(dir);
    return result;
}

/* The first value of a line "<name> <value>" in a /proc file; -1 if none. */
static int64_t proc_field(const char *path, const char *format) {
    FILE *file = fopen(path, "re");
    if (!file) return -1;
    char line[256];
    int64_t found = -1;
    while (fgets(line, sizeof line, file)) {
        long long value;
        if (sscanf(line, format, &value) == 1) {
            found = value;
            break;
        }
    }
    fclose(file);
    return found;
}

int64_t cb_write_bytes(void) { return proc_field("/proc/self/io", "write_bytes: %lld"); }

int64_t cb_rss_anon_kib(void) { return proc_field("/proc/self/status", "RssAnon: %lld kB"); }

int cb_spawn_and_wait(const char *const argv[], uint64_t *elapsed_ns, int *exit_status) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    uint64_t start = cb_now_ns();
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return rc;
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return errno;
    }
    *elapsed_ns = cb_now_ns() - start;
    *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}
