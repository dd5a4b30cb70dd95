// glibc's malloc tuning (mallopt): dustd caps its arenas (Sources/dustd/Dustd.swift).
#include <malloc.h>
