/// The whole FineDust database as the programs see it: every store protocol at once. What an
/// executable opens (dustd in its composition, dustctl in its support code) and hands on; a
/// service asks only for the protocols it uses.
public typealias FineDustStore = ActivityStore & AdvisoryStore & AlertStore & BackupStore & DaemonStatusStore & DataGenerationStore
    & ForecastStore
    & IndoorStore & PhysiologyStore
    & PersonDataStore & PollStore & PositionStore & SessionRevocationStore & SlotPlaceStore
    & StationStore
