// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ShareLog",
    products: [
        .library(name: "LMDB", targets: ["LMDB"]),
    ],
    targets: [
        // liblmdb from Debian's liblmdb-dev, found through pkg-config.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // The safe Swift wrapper: environment, transactions, databases, cursors, errors.
        .target(name: "LMDB", dependencies: ["CLMDB"]),

        // A separate process for the multi-process tests (stale readers, foreign
        // growth, concurrent readers, fork). Not a product: tests spawn it.
        .executableTarget(
            name: "lmdb-probe",
            dependencies: ["LMDB"],
            path: "Tests/LMDBProbe"
        ),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "lmdb-probe"]),
    ],
    swiftLanguageModes: [.v6]
)
