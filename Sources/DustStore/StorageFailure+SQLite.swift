import DustServices

// SQLite's failures in the services' vocabulary: what every transaction of the shared statements
// (DustSQL) and every opening of the file throws past DustStore.

extension StorageFailure {
    /// The failure a `SQLiteFailure` stands for.
    public init(_ error: SQLiteFailure) {
        let kind: Kind =
            switch error {
            case .diskFull: .diskFull
            case .cannotOpen, .readOnlyFileSystem: .unwritable
            case .busy: .locked
            case .schemaTooNew: .schemaTooNew
            case .databaseMissing: .missing
            case .corrupt, .notARegularFile: .unusable
            case .io: .io
            }
        let detail: Detail =
            switch error {
            case .databaseMissing(let path), .diskFull(let path), .busy(let path), .schemaTooNew(let path): Detail(database: path)
            case .cannotOpen(let path, let reason), .corrupt(let path, let reason): Detail(database: path, reason: reason)
            case .io(let path, let reason): Detail(database: path, reason: .given(reason))
            case .readOnlyFileSystem(let path): Detail(database: path, reason: .readOnlyFileSystem)
            case .notARegularFile(let path, let file, let type): Detail(database: path, reason: .notARegularFile(path: file, type: type))
            }
        self.init(kind: kind, description: error.description, detail: detail)
    }
}

extension ExitStatus {
    /// The status for a store error: that of the storage failure it stands for.
    public init(_ error: SQLiteFailure) {
        self.init(StorageFailure(error))
    }
}
