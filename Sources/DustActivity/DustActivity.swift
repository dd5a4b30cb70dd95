/// Walking distances from Apple Health exports and GPX tracks (docs/REFERENCE.md §12): read in bounded memory,
/// apportioned to hourly slots, merged by the largest source.
public enum DustActivity {}
