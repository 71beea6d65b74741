/// The environment's single write transaction.
public enum ReadWrite: TransactionAccess {}
