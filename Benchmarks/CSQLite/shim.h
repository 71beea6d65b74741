#ifndef SHARELOG_CSQLITE_SHIM_H
#define SHARELOG_CSQLITE_SHIM_H
// SQLite from Debian's libsqlite3-dev, for the benchmark's SQLite baseline only.
#include <sqlite3.h>
#endif
