/// Issue 32's goal for the write API, evaluated on the medians of a run.
extension TargetResult {
    /// Uploads over HTTP at the most clients ≥ 0.7x the library's own rate
    /// with as many clients. "The library's own rate at 8 clients" is read
    /// as the library with 8 creating tasks, whose writes may share a
    /// commit as the gateway's may: the stricter reading, since one
    /// creator, one commit at a time, is slower (its ratio is in the
    /// detail). Absent when the workload did not run.
    static func uploadTargets(_ measurements: Measurements, _ configuration: BenchConfiguration) -> [TargetResult] {
        guard let upload = configuration.upload, let most = upload.clients.max(), let fewest = upload.clients.min() else { return [] }
        func median(_ id: String, _ system: UploadWorkload.System) -> Double? { measurements.figure(id)?.results[system.rawValue]?.median }
        let row = UploadWorkload.rowID(clients: most), single = UploadWorkload.rowID(clients: fewest)
        guard let gateway = median(row, .gateway), let library = median(row, .library), library > 0 else { return [] }
        func ratio(_ theirs: Double?) -> String { Formatting.ratio(theirs.flatMap { $0 > 0 ? gateway / $0 : nil }) }
        func perCommit(_ system: UploadWorkload.System) -> String { median(row + ".sharesPerCommit", system).map(Formatting.value) ?? "—" }
        return [TargetResult(
            id: "upload.vsLibrary", statement: "uploads over HTTP ≥ 0.7x the library's create at \(most) clients",
            value: gateway / library, threshold: 0.7, atLeast: true,
            detail: "vs the library's one creator \(ratio(median(single, .library))), vs SQLite at \(most) clients \(ratio(median(row, .sqlite))); "
                + "shares per commit: gateway \(perCommit(.gateway)), library \(perCommit(.library))")]
    }
}
