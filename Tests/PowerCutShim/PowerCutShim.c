// The power-cut shim: see include/PowerCutShim.h for what it interposes and
// its environment, and Tests/CrashHarness/PowerCutJournal.swift for the
// journal it writes. Every record is written under one lock, so the journal
// is a total order of the process's syncs, writes and lines.
//
// Stores into a MAP_SHARED mapping are invisible to an interposer, so the
// shim reads the watched file (through its own descriptor: pread sees the
// page cache, which the mapping shares) at each sync's entry, after each
// write, truncation or allocation, and before each line, and journals the
// 512-byte sectors that changed since the previous read.
#define _GNU_SOURCE
#include "PowerCutShim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#define SECTOR 512

enum {
    TAG_SNAPSHOT = 'S', TAG_SYNC_BEGIN = 'B', TAG_SYNC_END = 'E', TAG_WRITE = 'W',
    TAG_TRUNCATE = 'T', TAG_LINE = 'L', TAG_DROPPED = 'D'
};
enum {
    SYNC_BASELINE = 0, SYNC_MSYNC = 1, SYNC_FSYNC = 2, SYNC_FDATASYNC = 3,
    SYNC_FILE_RANGE = 4, SYNC_SYNCFS = 5, SYNC_SYNC = 6
};

static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER;
static int active;
static int journal_fd = -1;
static const char *watched_path;
static int watched_fd = -1;
static dev_t watched_dev;
static ino_t watched_ino;
static int lines_fd = -1;
static int drop_data_msync;
static long os_page;
static unsigned char *shadow;
static size_t shadow_length;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static int (*real_msync)(void *, size_t, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_sync_file_range)(int, off_t, off_t, unsigned int);
static int (*real_syncfs)(int);
static void (*real_sync)(void);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_posix_fallocate)(int, off_t, off_t);
static int (*real_posix_fallocate64)(int, off_t, off_t);

static void *next_symbol(const char *name) {
    void *symbol = dlsym(RTLD_NEXT, name);
    if (!symbol) {
        fprintf(stderr, "powercut shim: no %s in the next library\n", name);
        abort();
    }
    return symbol;
}

/// Writes all of `bytes` to the journal; aborts on failure, since a journal
/// with a hole would describe states that never existed.
static void put(const void *bytes, size_t count) {
    const unsigned char *cursor = bytes;
    while (count > 0) {
        ssize_t written = real_write(journal_fd, cursor, count);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            fprintf(stderr, "powercut shim: cannot write the journal: %s\n", strerror(errno));
            abort();
        }
        cursor += written;
        count -= (size_t)written;
    }
}

static void put_u8(uint8_t value) { put(&value, 1); }
static void put_u32(uint32_t value) { put(&value, 4); }
static void put_u64(uint64_t value) { put(&value, 8); }

/// Opens the watched file once it exists; 0 when it is open.
static int watch(void) {
    if (watched_fd >= 0) return 0;
    int fd = open(watched_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat info;
    if (fstat(fd, &info) != 0) {
        close(fd);
        return -1;
    }
    watched_fd = fd;
    watched_dev = info.st_dev;
    watched_ino = info.st_ino;
    return 0;
}

static int is_watched(int fd) {
    if (!active || fd < 0 || watch() != 0) return 0;
    struct stat info;
    return fstat(fd, &info) == 0 && info.st_dev == watched_dev && info.st_ino == watched_ino;
}

/// Journals the sectors that changed since the last snapshot, and the file's
/// length. Called with the lock held.
static void snapshot(void) {
    if (watch() != 0) return;
    struct stat info;
    if (fstat(watched_fd, &info) != 0) abort();
    size_t length = (size_t)info.st_size;
    size_t sectors = (length + SECTOR - 1) / SECTOR;
    unsigned char *bytes = calloc(sectors ? sectors : 1, SECTOR);
    uint64_t *changed = malloc((sectors ? sectors : 1) * sizeof(uint64_t));
    if (!bytes || !changed) abort();
    size_t done = 0;
    while (done < length) {
        ssize_t got = pread(watched_fd, bytes + done, length - done, (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;  // the file shrank meanwhile: the rest reads as zeros
        done += (size_t)got;
    }
    static const unsigned char zeros[SECTOR];
    uint32_t count = 0;
    for (size_t sector = 0; sector < sectors; sector++) {
        size_t offset = sector * SECTOR;
        const unsigned char *before = zeros;
        unsigned char last[SECTOR];
        if (offset + SECTOR <= shadow_length) {
            before = shadow + offset;
        } else if (offset < shadow_length) {
            memset(last, 0, SECTOR);
            memcpy(last, shadow + offset, shadow_length - offset);
            before = last;
        }
        if (memcmp(before, bytes + offset, SECTOR) != 0) changed[count++] = sector;
    }
    put_u8(TAG_SNAPSHOT);
    put_u64(length);
    put_u32(count);
    for (uint32_t index = 0; index < count; index++) {
        put_u64(changed[index]);
        put(bytes + changed[index] * SECTOR, SECTOR);
    }
    free(changed);
    free(shadow);
    shadow = bytes;
    shadow_length = length;
}

static void journal_sync_begin(uint8_t tag, uint8_t kind, int32_t flags, uint64_t offset, uint64_t length) {
    snapshot();
    put_u8(tag);
    put_u8(kind);
    put_u32((uint32_t)flags);
    put_u64(offset);
    put_u64(length);
}

static void journal_sync_end(int result) {
    put_u8(TAG_SYNC_END);
    put_u32((uint32_t)result);
}

__attribute__((constructor)) static void start(void) {
    real_write = next_symbol("write");
    real_pwrite = next_symbol("pwrite");
    real_pwrite64 = next_symbol("pwrite64");
    real_msync = next_symbol("msync");
    real_fsync = next_symbol("fsync");
    real_fdatasync = next_symbol("fdatasync");
    real_sync_file_range = next_symbol("sync_file_range");
    real_syncfs = next_symbol("syncfs");
    real_sync = next_symbol("sync");
    real_ftruncate = next_symbol("ftruncate");
    real_ftruncate64 = next_symbol("ftruncate64");
    real_fallocate = next_symbol("fallocate");
    real_posix_fallocate = next_symbol("posix_fallocate");
    real_posix_fallocate64 = next_symbol("posix_fallocate64");
    os_page = sysconf(_SC_PAGESIZE);

    const char *journal = getenv("SHARELOG_POWERCUT_JOURNAL");
    watched_path = getenv("SHARELOG_POWERCUT_FILE");
    if (!journal || !watched_path) return;
    const char *lines = getenv("SHARELOG_POWERCUT_LINES_FD");
    if (lines) lines_fd = atoi(lines);
    const char *drop = getenv("SHARELOG_POWERCUT_DROP");
    drop_data_msync = drop && strcmp(drop, "data-msync") == 0;
    journal_fd = open(journal, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (journal_fd < 0) {
        fprintf(stderr, "powercut shim: cannot create %s: %s\n", journal, strerror(errno));
        abort();
    }
    active = 1;
    pthread_mutex_lock(&journal_lock);
    put("PCJ1", 4);
    put_u32(POWERCUT_JOURNAL_VERSION);
    put_u32(SECTOR);
    // What the file held when the writer started: the parent synced it.
    journal_sync_begin(TAG_SYNC_BEGIN, SYNC_BASELINE, 0, 0, UINT64_MAX);
    journal_sync_end(0);
    pthread_mutex_unlock(&journal_lock);
}

/// The file as the process left it: without this last snapshot, no cut
/// point would follow the last line the writer printed.
__attribute__((destructor)) static void finish(void) {
    if (!active) return;
    pthread_mutex_lock(&journal_lock);
    snapshot();
    pthread_mutex_unlock(&journal_lock);
}

/// The file range that `[address, address + length)` maps, when it maps
/// the watched file (read from /proc/self/maps); 0 when it does.
static int mapped_range(const void *address, size_t length, uint64_t *offset) {
    if (watch() != 0) return -1;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t capacity = 1 << 16, used = 0;
    char *text = malloc(capacity + 1);
    for (;;) {
        if (used == capacity) {
            capacity *= 2;
            text = realloc(text, capacity + 1);
        }
        if (!text) abort();
        ssize_t got = read(fd, text + used, capacity - used);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        used += (size_t)got;
    }
    close(fd);
    text[used] = 0;
    int found = -1;
    uintptr_t target = (uintptr_t)address;
    for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        unsigned long start, end, file_offset, inode;
        unsigned int major_number, minor_number;
        char permissions[8];
        if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &start, &end, permissions, &file_offset,
                   &major_number, &minor_number, &inode) != 7) continue;
        if (target < start || target >= end) continue;
        if (inode == watched_ino && makedev(major_number, minor_number) == watched_dev && target + length <= end) {
            *offset = file_offset + (target - start);
            found = 0;
        }
        break;
    }
    free(text);
    return found;
}

/// Journals the start of a sync of `kind` over `[offset, offset + length)`,
/// under the journal's lock. Pair it with `sync_ended`.
static void sync_began(uint8_t kind, int32_t flags, uint64_t offset, uint64_t length) {
    pthread_mutex_lock(&journal_lock);
    journal_sync_begin(TAG_SYNC_BEGIN, kind, flags, offset, length);
    pthread_mutex_unlock(&journal_lock);
}

/// Journals the end of the sync begun last, with `result` (and the errno
/// it left), and returns `result` with that errno.
static int sync_ended(int result) {
    int error = result == 0 ? 0 : errno;
    pthread_mutex_lock(&journal_lock);
    journal_sync_end(error);
    pthread_mutex_unlock(&journal_lock);
    errno = error;
    return result;
}

int msync(void *address, size_t length, int flags) {
    uint64_t offset;
    if (!active || mapped_range(address, length, &offset) != 0) return real_msync(address, length, flags);
    if (drop_data_msync && length > (size_t)os_page) {
        pthread_mutex_lock(&journal_lock);
        journal_sync_begin(TAG_DROPPED, SYNC_MSYNC, flags, offset, length);
        pthread_mutex_unlock(&journal_lock);
        return 0;
    }
    sync_began(SYNC_MSYNC, flags, offset, length);
    return sync_ended(real_msync(address, length, flags));
}

/// Journals a whole-file sync of kind `kind` around `call(fd)`.
static int whole_file_sync(uint8_t kind, int (*call)(int), int fd) {
    sync_began(kind, 0, 0, UINT64_MAX);
    return sync_ended(call(fd));
}

int fsync(int fd) {
    return is_watched(fd) ? whole_file_sync(SYNC_FSYNC, real_fsync, fd) : real_fsync(fd);
}

int fdatasync(int fd) {
    return is_watched(fd) ? whole_file_sync(SYNC_FDATASYNC, real_fdatasync, fd) : real_fdatasync(fd);
}

int syncfs(int fd) {
    struct stat info;
    if (!active || watch() != 0 || fstat(fd, &info) != 0 || info.st_dev != watched_dev) return real_syncfs(fd);
    return whole_file_sync(SYNC_SYNCFS, real_syncfs, fd);
}

static int call_sync(int fd) {
    (void)fd;
    real_sync();
    return 0;
}

void sync(void) {
    if (!active || watch() != 0) {
        real_sync();
        return;
    }
    whole_file_sync(SYNC_SYNC, call_sync, -1);
}

int sync_file_range(int fd, off_t offset, off_t count, unsigned int flags) {
    if (!is_watched(fd)) return real_sync_file_range(fd, offset, count, flags);
    sync_began(SYNC_FILE_RANGE, (int32_t)flags, (uint64_t)offset, count == 0 ? UINT64_MAX : (uint64_t)count);
    return sync_ended(real_sync_file_range(fd, offset, count, flags));
}

/// Journals a finished change of the watched file: a write record, then the sectors.
static void journal_change(uint8_t tag, uint64_t offset, uint64_t length) {
    int error = errno;
    pthread_mutex_lock(&journal_lock);
    put_u8(tag);
    put_u64(offset);
    put_u64(length);
    snapshot();
    pthread_mutex_unlock(&journal_lock);
    errno = error;
}

ssize_t write(int fd, const void *bytes, size_t count) {
    if (active && fd == lines_fd) {
        pthread_mutex_lock(&journal_lock);
        snapshot();
        put_u8(TAG_LINE);
        put_u32((uint32_t)count);
        put(bytes, count);
        pthread_mutex_unlock(&journal_lock);
        return real_write(fd, bytes, count);
    }
    ssize_t result = real_write(fd, bytes, count);
    if (result > 0 && is_watched(fd)) journal_change(TAG_WRITE, UINT64_MAX, (uint64_t)result);
    return result;
}

ssize_t pwrite(int fd, const void *bytes, size_t count, off_t offset) {
    ssize_t result = real_pwrite(fd, bytes, count, offset);
    if (result > 0 && is_watched(fd)) journal_change(TAG_WRITE, (uint64_t)offset, (uint64_t)result);
    return result;
}

ssize_t pwrite64(int fd, const void *bytes, size_t count, off_t offset) {
    ssize_t result = real_pwrite64(fd, bytes, count, offset);
    if (result > 0 && is_watched(fd)) journal_change(TAG_WRITE, (uint64_t)offset, (uint64_t)result);
    return result;
}

int ftruncate(int fd, off_t length) {
    int result = real_ftruncate(fd, length);
    if (result == 0 && is_watched(fd)) journal_change(TAG_TRUNCATE, 0, (uint64_t)length);
    return result;
}

int ftruncate64(int fd, off_t length) {
    int result = real_ftruncate64(fd, length);
    if (result == 0 && is_watched(fd)) journal_change(TAG_TRUNCATE, 0, (uint64_t)length);
    return result;
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
    int result = real_fallocate(fd, mode, offset, length);
    if (result == 0 && is_watched(fd)) journal_change(TAG_TRUNCATE, (uint64_t)offset, (uint64_t)length);
    return result;
}

int posix_fallocate(int fd, off_t offset, off_t length) {
    int result = real_posix_fallocate(fd, offset, length);
    if (result == 0 && is_watched(fd)) journal_change(TAG_TRUNCATE, (uint64_t)offset, (uint64_t)length);
    return result;
}

int posix_fallocate64(int fd, off_t offset, off_t length) {
    int result = real_posix_fallocate64(fd, offset, length);
    if (result == 0 && is_watched(fd)) journal_change(TAG_TRUNCATE, (uint64_t)offset, (uint64_t)length);
    return result;
}
