// Lets the LMDB probe measure heap kept by a failed open: mallinfo2 is not
// visible through Swift's Glibc module.
#include <malloc.h>
#include "CHeap.h"

size_t cheap_bytes_in_use(void) { return mallinfo2().uordblks; }
