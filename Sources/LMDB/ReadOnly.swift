/// A read-only snapshot.
public enum ReadOnly: TransactionAccess {}
