internal import CLMDB

/// `mdb_stat` of one database.
public struct DatabaseStatistics: Sendable, Hashable {
    public let entries: Int
    public let depth: Int
    public let branchPages: Int
    public let leafPages: Int
    public let overflowPages: Int
    public let pageSize: Int

    init(_ stat: MDB_stat) {
        entries = stat.ms_entries
        depth = Int(stat.ms_depth)
        branchPages = stat.ms_branch_pages
        leafPages = stat.ms_leaf_pages
        overflowPages = stat.ms_overflow_pages
        pageSize = Int(stat.ms_psize)
    }
}
