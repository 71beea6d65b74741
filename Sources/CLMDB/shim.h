#ifndef SHARELOG_CLMDB_SHIM_H
#define SHARELOG_CLMDB_SHIM_H
// Swift imports lmdb.h as it is; nothing in it needs a C helper.
#include <lmdb.h>
#endif
