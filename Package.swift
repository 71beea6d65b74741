// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ShareLog",
    products: [
        .library(name: "LMDB", targets: ["LMDB"]),
        .library(name: "LMDBScrub", targets: ["LMDBScrub"]),
        .library(name: "ShareClip", targets: ["ShareClip"]),
        .library(name: "ShareMetrics", targets: ["ShareMetrics"]),
        .library(name: "ShareLog", targets: ["ShareLog"]),
        .library(name: "ShareSync", targets: ["ShareSync"]),
        .library(name: "ShareHTTP", targets: ["ShareHTTP"]),
        .executable(name: "sharelog", targets: ["sharelog"]),
        // The power-cut harness's LD_PRELOAD shim (docs/RELIABILITY.md
        // "Power loss"). Not for clients: a shared library so that a writer
        // process can preload it; nothing links it.
        .library(name: "sharelog-powercut", type: .dynamic, targets: ["CPowerCut"]),
    ],
    targets: [
        // liblmdb from Debian's liblmdb-dev, found through pkg-config.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // zlib from Debian's zlib1g-dev, for event checksums.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // OpenSSL 3 from Debian's libssl-dev: TLS 1.3 and HMAC for sync.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // The NATS C client from Debian's libnats-dev: the JetStream relay
        // (docs/SCALING.md).
        .systemLibrary(
            name: "CNATS",
            pkgConfig: "libnats",
            providers: [.apt(["libnats-dev"])]
        ),
        // GNU libmicrohttpd from Debian's libmicrohttpd-dev: the HTTP
        // gateway's server (docs/HTTP.md).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // libcurl from Debian's libcurl4-openssl-dev: the clip's HTTPS
        // fetch of a link (docs/HTTP.md).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Linux futexes (no library: the syscall and atomics, as static
        // inline C), for the store's cross-process commit signal.
        .systemLibrary(name: "CFutex"),
        // Layer 0: the small primitives every library shares (the lock,
        // Duration's units, CRC-32, an owned file descriptor, secret bytes,
        // the owning thread and the handoff of a value that is not Sendable).
        .target(name: "SharePrimitives", dependencies: ["CZlib"]),
        // Metrics in Prometheus's text exposition format: counters, gauges,
        // histograms and their registry. Pure Swift; each library counts its
        // own into it, and `sharelog` serves it (docs/OPERATIONS.md).
        .target(name: "ShareMetrics", dependencies: ["SharePrimitives"]),
        // The safe Swift wrapper: environment, transactions, databases, cursors, errors.
        .target(name: "LMDB", dependencies: ["CLMDB", "SharePrimitives"]),
        // Secure delete for data.mdb: walks LMDB's on-disk pages and zeroes
        // what no snapshot uses. Apart from the wrapper, so its reach shows
        // at the import level.
        .target(name: "LMDBScrub", dependencies: ["LMDB", "CLMDB", "SharePrimitives"]),
        // What an App Clip's interface links: card links (parse and build),
        // vCard validation, preview and photo decoding. Pure code, no LMDB.
        .target(name: "ShareClip"),
        // The engine: events, log, projections, expiry, compaction, verify.
        .target(name: "ShareLog", dependencies: ["SharePrimitives", "ShareMetrics", "LMDB", "LMDBScrub", "CFutex", "ShareClip"]),
        // Sync (docs/SYNC.md): wire frames, session state machines,
        // transports (Unix sockets, TCP with TLS 1.3, stdio), the server,
        // and the relay over NATS JetStream.
        .target(name: "ShareSync", dependencies: ["SharePrimitives", "ShareMetrics", "ShareLog", "ShareClip", "COpenSSL", "CNATS"]),
        // The link's domain over HTTP (docs/HTTP.md): the pure request
        // handler (routes, negotiation, cache policy, rendering, limits),
        // the libmicrohttpd server around it, and the clip's libcurl fetch.
        .target(name: "ShareHTTP", dependencies: ["SharePrimitives", "ShareMetrics", "ShareLog", "ShareSync", "ShareClip", "COpenSSL", "CMicroHTTPD", "CCurl"]),
        // Deterministic sample business cards for the demo, the benchmark
        // and the tests. Not a product: no library's public API holds them.
        .target(name: "SampleCards"),
        // The command-line tool: parses arguments, calls ShareLog, prints.
        .executableTarget(name: "sharelog", dependencies: ["SharePrimitives", "ShareMetrics", "ShareLog", "ShareSync", "ShareHTTP", "ShareClip", "SampleCards"]),

        // A separate process for the multi-process tests (stale readers, foreign
        // growth, concurrent readers, fork). Not a product: tests spawn it.
        .executableTarget(
            name: "lmdb-probe",
            dependencies: ["LMDB", "CHeap"],
            path: "Tests/LMDBProbe"
        ),
        // A second read-write process for the multi-process tests of
        // MDB_WRITEMAP (privacy after another process wrote, map sizes).
        // Not a product: tests spawn it.
        .executableTarget(name: "lmdb-peer", dependencies: ["LMDB", "CLMDB"], path: "Tests/LMDBPeer"),
        // The probe's view of the C heap, for leak checks.
        .target(name: "CHeap", path: "Tests/CHeap"),
        // Helpers shared by the test targets; Resources holds the scripts
        // they run (by path), not files the target builds or bundles.
        .target(name: "TestSupport", path: "Tests/TestSupport", exclude: ["Resources"]),
        // Swift Testing traits the test targets share (not in TestSupport,
        // which the benchmark links into a static build without Testing).
        .target(name: "TestTraits", path: "Tests/TestTraits"),
        .testTarget(name: "SharePrimitivesTests", dependencies: ["SharePrimitives", "TestSupport"]),
        .testTarget(name: "ShareMetricsTests", dependencies: ["ShareMetrics", "TestSupport", "TestTraits"]),
        .testTarget(name: "LMDBTests", dependencies: ["SharePrimitives", "LMDB", "LMDBScrub", "lmdb-probe", "lmdb-peer", "TestSupport", "TestTraits"]),
        .testTarget(name: "ShareSyncTests", dependencies: ["SharePrimitives", "ShareSync", "ShareLog", "SampleCards", "TestSupport", "TestTraits", "sharelog"]),
        .testTarget(name: "ShareHTTPTests", dependencies: ["ShareHTTP", "ShareMetrics", "SharePrimitives", "ShareSync", "ShareLog", "ShareClip", "SampleCards", "TestSupport", "TestTraits", "sharelog"]),
        .testTarget(name: "ShareClipTests", dependencies: ["ShareClip", "SampleCards", "TestSupport", "TestTraits"]),
        .testTarget(
            name: "ShareLogTests", dependencies: ["SharePrimitives", "ShareLog", "ShareClip", "SampleCards", "FormatReference", "TestSupport", "TestTraits", "sharelog"]),

        // Reliability harnesses (docs/RELIABILITY.md): fuzz targets and their
        // libFuzzer driver, the crash-injection harness, and their tests.
        // An event reader written from docs/FORMAT.md alone: the fuzz target's and
        // the reference model's oracle for the log.
        .target(name: "FormatReference", dependencies: ["ShareLog", "CZlib"], path: "Tests/FormatReference"),
        .target(
            name: "FuzzTargets", dependencies: ["ShareLog", "ShareClip", "ShareSync", "ShareHTTP", "SampleCards", "CZlib", "FormatReference", "TestSupport"],
            path: "Tests/FuzzTargets"),
        .target(name: "CFuzzDriver", path: "Tests/CFuzzDriver"),
        .executableTarget(name: "sharelog-fuzz", dependencies: ["FuzzTargets", "CFuzzDriver"], path: "Tests/FuzzDriver"),
        .target(name: "CrashHarness", dependencies: ["ShareLog", "SampleCards", "TestSupport"], path: "Tests/CrashHarness"),
        .executableTarget(name: "sharelog-crash", dependencies: ["CrashHarness"], path: "Tests/CrashRunner"),
        // The power-cut shim: interposes msync, fsync, write and the like in
        // a preloaded writer. Only the product above may contain it: linked
        // into a process it would journal that process's own syncs.
        .target(name: "CPowerCut", path: "Tests/PowerCutShim", linkerSettings: [.linkedLibrary("dl")]),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["SharePrimitives", "ShareLog", "ShareClip", "SampleCards", "LMDB", "TestSupport", "TestTraits", "FuzzTargets", "CrashHarness", "sharelog", "sharelog-crash"]
        ),
        // Benchmarks (Benchmarks/, BENCHMARKS.md): ShareLog side by side with
        // raw LMDB in C, with SQLite and with Redis. Not products: Scripts/bench builds them.
        // SQLite from Debian's libsqlite3-dev, for the SQLite baseline only.
        .systemLibrary(
            name: "CSQLite",
            path: "Benchmarks/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The baselines in C: ShareLog's schema on raw LMDB, SQLite, and a
        // redis-server that the benchmark starts, driven through hiredis.
        // hiredis comes from Debian's libhiredis-dev (its header is in
        // /usr/include) and is linked here, not through a system-library
        // target: its pkg-config flags hold -D_FILE_OFFSET_BITS=64, which
        // SwiftPM refuses with a warning, and a C target takes no link flag
        // from a module map.
        .target(
            name: "CBaseline", dependencies: ["CLMDB", "CZlib", "CSQLite"], path: "Benchmarks/CBaseline",
            linkerSettings: [.linkedLibrary("hiredis")]
        ),
        // The clip's cold start in C: a process that opens a store and fetches one share.
        .executableTarget(name: "sharelog-cold-c", dependencies: ["CBaseline"], path: "Benchmarks/sharelog-cold-c"),
        // The clip's cold start in Swift: a process that links the engine alone.
        .executableTarget(name: "sharelog-cold", dependencies: ["ShareLog"], path: "Benchmarks/sharelog-cold"),
        // The workloads, measurements, report and chart.
        .target(name: "BenchmarkKit", dependencies: ["ShareLog", "ShareSync", "ShareHTTP", "ShareClip", "SampleCards", "LMDB", "CBaseline", "TestSupport"], path: "Benchmarks/BenchmarkKit"),
        // The benchmark command: parses arguments, runs BenchmarkKit, prints.
        .executableTarget(name: "sharelog-bench", dependencies: ["BenchmarkKit"], path: "Benchmarks/sharelog-bench"),
        // One smoke test that runs every workload at tiny sizes.
        .testTarget(name: "BenchmarkTests", dependencies: ["BenchmarkKit", "TestSupport", "TestTraits", "sharelog-bench", "sharelog-cold-c", "sharelog-cold"]),
    ],
    swiftLanguageModes: [.v6]
)
