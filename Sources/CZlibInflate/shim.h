// zlib from Debian's zlib1g-dev: FineDust inflates a zip entry's bytes itself, bounded by the
// entry's compressed size (Sources/DustActivity/ZipEntryData.swift).
#include <zlib.h>
