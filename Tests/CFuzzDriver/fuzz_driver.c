#include "fuzz_driver.h"

// Defined by libFuzzer (compiler-rt) when the link uses -sanitize=fuzzer;
// otherwise the weak reference stays null.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t))
    __attribute__((weak));

int sharelog_fuzzer_linked(void) { return LLVMFuzzerRunDriver != 0; }

int sharelog_fuzzer_run(int *argc, char ***argv, sharelog_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
