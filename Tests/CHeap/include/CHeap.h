#ifndef SHARELOG_CHEAP_H
#define SHARELOG_CHEAP_H
#include <stddef.h>
/// Bytes the C heap has handed out and not yet taken back (glibc mallinfo2).
size_t cheap_bytes_in_use(void);
#endif
