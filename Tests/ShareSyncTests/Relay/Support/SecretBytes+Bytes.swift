import SharePrimitives

extension SecretBytes {
    /// A copy of the bytes, for a test's comparison with known values.
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
