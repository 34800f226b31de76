#include "percentile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int percentile(const double *values, size_t n, double p, double *out)
{
    if (n == 0 || !(p > 0.0 && p <= 100.0))
        return -1;
    double *sorted = malloc(n * sizeof *sorted);
    if (sorted == NULL)
        return -1;
    memcpy(sorted, values, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, ascending);
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    *out = sorted[rank - 1];
    free(sorted);
    return 0;
}
