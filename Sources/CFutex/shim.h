#ifndef SHARELOG_CFUTEX_SHIM_H
#define SHARELOG_CFUTEX_SHIM_H
// Linux futexes on a 32-bit word in a MAP_SHARED file mapping, for the
// store's cross-process commit signal (docs/SYNC.md "The commit signal").
// Swift cannot call the variadic syscall(2), and has no atomics on a word it
// does not own, so these few lines are C. No FUTEX_PRIVATE_FLAG: the word is
// shared by processes, which the kernel keys by the file and offset.
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// The word's value, read with sequential consistency.
static inline uint32_t sharelog_futex_load(const uint32_t *word) {
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

// Adds one to the word (wrapping), with sequential consistency, then wakes
// every thread of every process waiting on it. The add comes first, so a
// waiter that read the old value either is woken or finds the new one when
// its wait starts (FUTEX_WAIT compares under the kernel's lock).
// Returns how many were woken, or -errno.
static inline long sharelog_futex_ring(uint32_t *word) {
    __atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
    long woken = syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    return woken < 0 ? -errno : woken;
}

// Wakes every waiter on the word without changing it.
static inline long sharelog_futex_wake(uint32_t *word) {
    long woken = syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    return woken < 0 ? -errno : woken;
}

// Sleeps while the word holds `expected`, for at most `timeout_ns`
// nanoseconds. Returns 0 when woken (possibly spuriously), -EAGAIN when the
// word no longer held `expected`, -ETIMEDOUT, or -EINTR.
static inline int sharelog_futex_wait(const uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    struct timespec timeout = { (time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000) };
    long result = syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
    return result == 0 ? 0 : -errno;
}
#endif
