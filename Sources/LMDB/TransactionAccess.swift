/// Marks what a `Transaction` may do.
public protocol TransactionAccess {}
