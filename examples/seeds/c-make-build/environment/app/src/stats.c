#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct summary summarise(double *values, size_t n)
{
    struct summary s = {0};
    qsort(values, n, sizeof *values, compare);
    double sum = 0.0, squares = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += values[i];
    s.count = n;
    s.min = values[0];
    s.max = values[n - 1];
    s.mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        squares += (values[i] - s.mean) * (values[i] - s.mean);
    s.stddev = sqrt(squares / (double)n);
    s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
    return s;
}
