#ifndef NUMSTAT_STATS_H
#define NUMSTAT_STATS_H

#include <stddef.h>

struct summary {
    size_t count;
    double min, max, mean, stddev, median;
};

/* Summarises values[0..n-1] (n > 0); sorts the array in place. */
struct summary summarise(double *values, size_t n);

#endif
