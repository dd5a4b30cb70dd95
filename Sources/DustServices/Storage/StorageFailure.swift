/// Why the database could not keep what a poll fetched, in the words an operator needs.
///
/// A storage failure is never reported as a network failure: a full disk says so, and what to do.
public struct StorageFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of storage problem it is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The disk or file system holding the database is full.
        case diskFull
        /// The database or its directory cannot be opened or written (permissions, read-only mount).
        case unwritable
        /// Another process held the database longer than the busy timeout.
        case locked
        /// The database was written by a newer FineDust.
        case schemaTooNew
        /// The file was deleted or replaced under the running daemon.
        case replaced
        /// There is no database at the path.
        case missing
        /// The file is damaged or not a FineDust database.
        case unusable
        /// Any other I/O failure.
        case io
        /// The database server cannot be reached, or the connection to it was lost (docs/REFERENCE.md §20).
        case unreachable
        /// The database server refused the login or the statement: a wrong password, or a role
        /// without the privilege (a read-only role used for writing; docs/REFERENCE.md §20).
        case denied
    }

    public var kind: Kind
    /// One sentence: what happened and what to do.
    public var description: String

    public init(kind: Kind, description: String) {
        self.kind = kind
        self.description = description
    }
}
