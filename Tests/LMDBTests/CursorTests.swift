import Testing
@testable import LMDB

@Suite struct CursorTests {
    /// A store holding keys 10, 20, …, 100.
    func tens() throws -> Store {
        let store = try Store()
        let data = store.data
        try store.env.write { txn in
            for number in stride(from: UInt64(10), through: 100, by: 10) {
                try txn.put([UInt8(number)], forKey: key(number), in: data, flags: .append)
            }
        }
        return store
    }

    func scanned(_ store: Store, _ range: KeyRange, reverse: Bool = false) throws -> [UInt8] {
        try store.env.read { txn in
            var seen: [UInt8] = []
            try txn.scan(store.data, in: range, reverse: reverse) { entry in
                seen.append(entry.value[0])
                return .proceed
            }
            return seen
        }
    }

    @Test func scansEverythingInOrderAndInReverse() throws {
        let store = try tens()
        #expect(try scanned(store, .all) == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
        #expect(try scanned(store, .all, reverse: true) == [100, 90, 80, 70, 60, 50, 40, 30, 20, 10])
    }

    @Test func boundsAreInclusiveBelowAndChosenAbove() throws {
        let store = try tens()
        #expect(try scanned(store, .from(key(30), upTo: key(60))) == [30, 40, 50])
        #expect(try scanned(store, .from(key(30), through: key(60))) == [30, 40, 50, 60])
        #expect(try scanned(store, .from(key(25), upTo: key(55))) == [30, 40, 50])
        #expect(try scanned(store, .from(key(95))) == [100])
        #expect(try scanned(store, .upTo(key(30))) == [10, 20])
        #expect(try scanned(store, .through(key(30))) == [10, 20, 30])
        #expect(try scanned(store, .from(key(200))) == [])
    }

    @Test func reverseScansRespectTheSameBounds() throws {
        let store = try tens()
        #expect(try scanned(store, .from(key(30), upTo: key(60)), reverse: true) == [50, 40, 30])
        #expect(try scanned(store, .from(key(30), through: key(60)), reverse: true) == [60, 50, 40, 30])
        #expect(try scanned(store, .from(key(25), upTo: key(55)), reverse: true) == [50, 40, 30])
        #expect(try scanned(store, .through(key(500)), reverse: true).count == 10)
        #expect(try scanned(store, .upTo(key(5)), reverse: true) == [])
    }

    @Test func aScanStopsWhenAsked() throws {
        let store = try tens()
        let visited = try store.env.read { txn in
            try txn.scan(store.data) { entry in entry.value[0] == 30 ? .stop : .proceed }
        }
        #expect(visited == 3)
    }

    @Test func cursorMovesAndSeeks() throws {
        let store = try tens()
        let landed = try store.env.read { txn in
            try txn.withCursor(on: store.data) { cursor -> [UInt8?] in
                [
                    try cursor.first()?.value.first,
                    try cursor.next()?.value.first,
                    try cursor.last()?.value.first,
                    try cursor.next()?.value.first,
                    try cursor.seek(atLeast: key(41))?.value.first,
                    try cursor.previous()?.value.first,
                    try cursor.seek(exactly: key(41))?.value.first,
                    try cursor.seek(exactly: key(70))?.value.first,
                    try cursor.current()?.value.first,
                ]
            }
        }
        #expect(landed == [10, 20, 100, nil, 50, 40, nil, 70, 70])
    }

    @Test func deletingUnderACursorContinuesWithTheNextEntry() throws {
        let store = try tens()
        let data = store.data
        try store.env.write { txn in
            try txn.withCursor(on: data) { cursor in
                var entry = try cursor.first()
                while let current = entry {
                    if current.value[0] % 20 == 0 { try cursor.deleteCurrent() }
                    entry = try cursor.next()
                }
            }
        }
        #expect(try scanned(store, .all) == [10, 30, 50, 70, 90])
    }

    @Test func replacingUnderACursorKeepsTheKey() throws {
        let store = try tens()
        let data = store.data
        try store.env.write { txn in
            try txn.withCursor(on: data) { cursor in
                _ = try cursor.seek(exactly: key(50))
                try cursor.replaceCurrent(with: [55])
            }
        }
        #expect(try store.contents()[key(50)] == [55])
    }
}

@Suite struct CursorEdgeTests {
    @Test(arguments: [512, 4096])
    func seekingWithAKeyOverTheSizeLimitIsRefused(size: Int) throws {
        let store = try CursorTests().tens()
        let error = #expect(throws: LMDBError.badKeySize) {
            try store.env.read { txn in
                try txn.withCursor(on: store.data) { cursor in
                    _ = try cursor.seek(atLeast: [UInt8](repeating: 1, count: size))
                }
            }
        }
        #expect(error?.description.contains("\(size) bytes") == true)
    }

    @Test func emptyBoundsMeanTheStartAndNothing() throws {
        let store = try CursorTests().tens()
        #expect(try CursorTests().scanned(store, .from([])).count == 10)
        #expect(try CursorTests().scanned(store, .upTo([])) == [])
        #expect(try CursorTests().scanned(store, .through([]), reverse: true) == [])
    }

    @Test func replacingWithALongerValueOnADirtyPageKeepsEveryKey() throws {
        let store = try CursorTests().tens()
        let data = store.data
        try store.env.write { txn in
            try txn.put([1], forKey: key(15), in: data)  // dirty the page first
            try txn.withCursor(on: data) { cursor in
                _ = try cursor.seek(exactly: key(50))
                try cursor.replaceCurrent(with: [UInt8](repeating: 55, count: 300))
            }
        }
        let stored = try store.contents()
        #expect(stored.keys.sorted { $0.lexicographicallyPrecedes($1) } == ([10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100] as [UInt64]).map { key($0) })
        #expect(stored[key(50)] == [UInt8](repeating: 55, count: 300))
    }
}
