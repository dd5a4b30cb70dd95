import DustConfig
import PostgresNIO

// The PostgreSQL implementation of DustServices' store protocols (docs/REFERENCE.md §20) is
// being built on this branch.
