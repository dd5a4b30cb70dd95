// glibc's malloc tuning: dustd caps its arenas (mallopt, Sources/dustd/Dustd.swift) and gives free
// pages back (malloc_trim, Sources/DustDaemon/HeapTrimService.swift).
#include <malloc.h>
