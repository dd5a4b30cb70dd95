/* The whole-process C floor for `dustctl activity import export.xml` (Benchmarks/activity-import.sh):
     cc -O2 -I/usr/include/libxml2 -IBenchmarks/Sources/CBaselines/include \
        Benchmarks/Sources/CBaselines/health_floor.c Benchmarks/health_floor_main.c -lxml2 -o health_floor */
#include <stdio.h>
#include "CBaselines.h"

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: health_floor export.xml\n"); return 64; }
    fd_health_totals totals;
    if (fd_health_floor(argv[1], &totals) != 0) { fprintf(stderr, "health_floor: %s is not well-formed\n", argv[1]); return 65; }
    printf("%ld distance records, %ld other records, %.3f km\n", totals.distance_records, totals.other_records, totals.metres / 1000);
    return 0;
}
