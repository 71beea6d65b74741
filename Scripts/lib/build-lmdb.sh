#!/usr/bin/env bash
# Builds liblmdb 0.9.36 as a shared library, from the LMDB source that the
# Python package lmdb 3.0.0 bundles (lib/mdb.c, lib/midl.c, unpatched), so
# the tests can run against a liblmdb other than Debian's 0.9.24:
#
#   dir="$(Scripts/lib/build-lmdb.sh)"
#   LD_LIBRARY_PATH="$dir" swift test --skip-build --filter ...
#
# Prints the directory that holds liblmdb.so.0 (Debian's soname, so the
# dynamic linker takes it in place of Debian's). The sdist is fetched once
# with pip from PyPI, checked against its SHA-256, and kept with the build
# under .build/lmdb-0.9.36 (or $LMDB_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."

version=0.9.36
sdist=lmdb-3.0.0.tar.gz
sha256=06dda0723545e14d56ac7dcd6f582d9922c2ed5e16f1c3f8d0e670a96ec2ee65
dir="${LMDB_BUILD_DIR:-$PWD/.build/lmdb-$version}"
mkdir -p "$dir"

if [ ! -f "$dir/liblmdb.so.0" ]; then
    if [ ! -f "$dir/$sdist" ]; then
        echo "==> pip download lmdb==3.0.0 (source only)" >&2
        python3 -m pip download --quiet --no-deps --no-binary :all: \
            --dest "$dir" lmdb==3.0.0 >&2
    fi
    echo "$sha256  $dir/$sdist" | sha256sum --check --quiet >&2
    rm -rf "$dir/src"
    mkdir -p "$dir/src"
    tar -xzf "$dir/$sdist" -C "$dir/src" --strip-components=2 \
        lmdb-3.0.0/lib/mdb.c lmdb-3.0.0/lib/midl.c lmdb-3.0.0/lib/lmdb.h lmdb-3.0.0/lib/midl.h
    grep -q "#define MDB_VERSION_PATCH[[:space:]]*36" "$dir/src/lmdb.h" || {
        echo "error: $sdist does not bundle liblmdb $version" >&2
        exit 1
    }
    echo "==> cc liblmdb.so.0 ($version)" >&2
    # The flags of liblmdb's own Makefile, as a shared library.
    cc -O2 -g -W -Wall -Wno-unused-parameter -Wbad-function-cast -Wuninitialized -pthread -fPIC -shared \
        -Wl,-soname,liblmdb.so.0 -o "$dir/liblmdb.so.0.tmp" "$dir/src/mdb.c" "$dir/src/midl.c" >&2
    mv "$dir/liblmdb.so.0.tmp" "$dir/liblmdb.so.0"
fi
echo "$dir"
