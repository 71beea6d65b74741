/// The seeded store did not come out as the test built it.
enum SeedFailure: Error {
    case sweptWrongCount(Int)
}
