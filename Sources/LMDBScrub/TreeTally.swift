import LMDB
/// What a walk of one tree counted, to hold against its `MDB_db`.
struct TreeTally {
    var branchPages = 0
    var leafPages = 0
    var overflowPages = 0
    var entries = 0
    var depth = 0

    func matches(_ record: DatabaseRecord) -> Bool {
        branchPages == record.branchPages && leafPages == record.leafPages
            && overflowPages == record.overflowPages && entries == record.entries && depth == record.depth
    }

    var summary: String {
        "depth \(depth), \(branchPages) branch, \(leafPages) leaf, \(overflowPages) overflow pages, \(entries) entries"
    }
}
