#ifndef SHARELOG_CZLIB_SHIM_H
#define SHARELOG_CZLIB_SHIM_H
// ShareLog uses zlib's crc32_z for event checksums; nothing needs a C helper.
#include <zlib.h>
#endif
