/// How much of the map the writer keeps free ahead of its commits.
///
/// A write that fills the map aborts its whole group, which runs again
/// once the map has grown: every write the group had made is done twice,
/// and a store filling from empty meets that at each doubling (eight times
/// on the way to 256 MiB). So the writer learns from each commit how far
/// the used extent of the file advanced (pages allocated past the last
/// one any snapshot used; free pages reused do not count), and before the
/// next group grows the map, by doublings, until twice that advance lies
/// free. A group like the last one then never meets a full map.
///
/// What it costs: a store whose data stopped growing never grows ahead,
/// and one that grows does so at most one doubling earlier than a full
/// map would have made it (the file, and its allocated blocks, follow the
/// map). It grows only when the disk has room for the whole growth: the
/// last bytes of a nearly full disk are for a write that fills the map,
/// not for a guess. After the disk had no room (for a growth ahead, or for
/// the map's blocks, when the writer shrank the map to what fitted), it
/// stops growing ahead until a write fills the map again, so that a nearly
/// full disk is not asked for the same room before every commit.
///
/// Owned by the writer thread, between transactions.
struct MapRunway {
    /// Bytes the used extent advanced in the last commit.
    private var lastAdvance = 0
    /// The used extent before the group being committed, when it was read.
    private var usedBefore: Int?
    /// Whether the disk refused room since the map last filled.
    private var heldByDisk = false

    /// Before a group's first attempt: grows the map if less than twice
    /// the last advance lies free and the disk has room for the growth. A
    /// growth that fails is left to the attempt, which meets the full map
    /// or disk as it would have anyway.
    mutating func prepare(_ environment: EnvironmentHandle) {
        let extent = environment.mapExtent()
        usedBefore = extent.used
        guard !heldByDisk, lastAdvance > 0, extent.size - extent.used < 2 * lastAdvance else { return }
        if (try? environment.growMap(leaving: 2 * lastAdvance)) == false { heldByDisk = true }
    }

    /// After the group committed: remembers how far it advanced the used extent.
    mutating func committed(_ environment: EnvironmentHandle) {
        guard let before = usedBefore else { return }
        lastAdvance = max(environment.mapExtent().used - before, 0)
        usedBefore = nil
    }

    /// A write filled the map, and the writer grew it.
    mutating func filled() { heldByDisk = false }

    /// The disk had no room for the map's blocks, and the writer shrank it.
    mutating func refusedByDisk() { heldByDisk = true }
}
