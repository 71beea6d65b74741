# Sourced by the scripts: installs the Debian packages ShareLog needs, and
# only those that are missing. A fresh machine has no package lists, so
# `apt-get update` runs first, once, and only when something is missing.

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "error: '$*' needs root; run it as root or install sudo" >&2
        exit 1
    fi
}

# require_packages CHECK PACKAGE [CHECK PACKAGE ...]: installs PACKAGE when
# the shell command CHECK fails.
require_packages() {
    local missing=()
    while [ "$#" -ge 2 ]; do
        if ! eval "$1" >/dev/null 2>&1; then missing+=("$2"); fi
        shift 2
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "==> installing ${missing[*]}"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
}

# What building and testing ShareLog needs. libnats is the NATS C client
# the JetStream relay runs on (docs/SCALING.md); libmicrohttpd serves the
# HTTP gateway and libcurl is the clip's HTTPS client (docs/HTTP.md). SQLite and hiredis are the
# benchmark's only (its SQLite and Redis baselines), but their target builds
# with the package (and its smoke test).
require_build_packages() {
    require_packages \
        "command -v pkg-config" pkg-config \
        "pkg-config --exists lmdb" liblmdb-dev \
        "pkg-config --exists zlib" zlib1g-dev \
        "pkg-config --exists openssl" libssl-dev \
        "pkg-config --exists libnats" libnats-dev \
        "pkg-config --exists libmicrohttpd" libmicrohttpd-dev \
        "pkg-config --exists libcurl" libcurl4-openssl-dev \
        "pkg-config --exists sqlite3" libsqlite3-dev \
        "pkg-config --exists hiredis" libhiredis-dev
}

# What Scripts/bench needs on top: gnuplot (without X) draws the sweep chart;
# the Redis baseline starts its own redis-server.
require_bench_packages() {
    require_packages \
        "command -v gnuplot" gnuplot-nox \
        "command -v redis-server" redis-server \
        "command -v ip" iproute2 \
        "command -v nft" nftables \
        "command -v nats-server" nats-server \
        "command -v nginx" nginx \
        "command -v wrk" wrk \
        "command -v curl" curl \
        "command -v openssl" openssl
}

# What the tests need besides: the independent readers of a store
# (ReliabilityTests) use lmdb-utils and Debian's python3 with python3-lmdb;
# the metrics tests parse every scrape with python3-prometheus-client;
# the relay's --creds tests make NATS NKeys and JWTs (Ed25519) with
# python3-cryptography, as nsc would;
# systemd's systemd-analyze verifies the units in Deploy/systemd;
# faketime runs the tests again with the clock a year ahead; the benchmark's
# smoke test (BenchmarkTests) starts redis-server; NetworkFaultTests joins two
# network namespaces with `ip` (iproute2) and injects faults with `nft`; the
# relay's tests run a three-node JetStream cluster of nats-server; the HTTP
# gateway's tests use clients nobody here wrote: curl, openssl s_client and
# headless chromium (docs/HTTP.md); the benchmark's smoke test runs the
# HTTP workload's wrk against nginx.
require_test_packages() {
    require_packages \
        "command -v mdb_stat && command -v mdb_dump" lmdb-utils \
        "/usr/bin/python3 -c 'import lmdb'" python3-lmdb \
        "/usr/bin/python3 -c 'import prometheus_client.parser'" python3-prometheus-client \
        "/usr/bin/python3 -c 'import cryptography.hazmat.primitives.asymmetric.ed25519'" python3-cryptography \
        "command -v systemd-analyze" systemd \
        "command -v faketime" faketime \
        "command -v redis-server" redis-server \
        "command -v ip" iproute2 \
        "command -v nft" nftables \
        "command -v nats-server" nats-server \
        "command -v curl" curl \
        "command -v openssl" openssl \
        "command -v chromium" chromium \
        "command -v nginx" nginx \
        "command -v wrk" wrk
}
