// libFuzzer's driver, reached through a weak reference so that the same
// executable links in an ordinary build (no libFuzzer: replay only) and in a
// build with `-sanitize=fuzzer,address` (libFuzzer linked in: fuzzing).
#ifndef SHARELOG_FUZZ_DRIVER_H
#define SHARELOG_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef int (*sharelog_fuzz_callback)(const uint8_t *data, size_t size);

/// 1 when libFuzzer is linked into this executable, 0 otherwise.
int sharelog_fuzzer_linked(void);

/// Runs libFuzzer (`LLVMFuzzerRunDriver`) with `argc`/`argv` and `callback`.
/// Only call it when `sharelog_fuzzer_linked()` returns 1.
int sharelog_fuzzer_run(int *argc, char ***argv, sharelog_fuzz_callback callback);

#endif
