import DustServices

// SQLite's failures in the services' vocabulary. Each store protocol of DustServices/Storage is
// implemented next to its SQL (SQLiteStore.swift, PollAttempt.swift, ForecastStorage.swift,
// AlertRecords.swift), under the protocol's own method names.

extension StorageFailure {
    /// The failure a `StoreError` stands for.
    public init(_ error: StoreError) {
        let kind: Kind =
            switch error {
            case .diskFull: .diskFull
            case .cannotOpen: .unwritable
            case .busy: .locked
            case .schemaTooNew: .schemaTooNew
            case .databaseMissing: .missing
            case .corrupt: .unusable
            case .io: .io
            }
        self.init(kind: kind, description: error.description)
    }
}

extension ExitStatus {
    /// The status for a store error: that of the storage failure it stands for.
    public init(_ error: StoreError) {
        self.init(StorageFailure(error))
    }
}
