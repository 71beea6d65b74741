import TestSupport
extension SharelogCLI {
    /// A CLI on `store` as the fault tests run it: at an hour after
    /// `SeedStore.createdAt`, while the seeded shares are live, each run
    /// allowed 120 s (a pull of `KillBench`'s whole store is long on two
    /// cores).
    static func forFaults(store: String) -> SharelogCLI {
        SharelogCLI(store: store, now: "2026-12-01T11:00:00Z", timeout: .seconds(120))
    }
}
