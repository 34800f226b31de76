#include "histogram.h"

long histogram(const double *values, size_t n, double lo, double hi, size_t bins, size_t *counts)
{
    if (bins == 0 || !(lo < hi))
        return -1;
    for (size_t k = 0; k < bins; k++)
        counts[k] = 0;
    long counted = 0;
    for (size_t i = 0; i < n; i++) {
        double v = values[i];
        if (!(v >= lo && v <= hi))
            continue;
        size_t k = (size_t)((v - lo) / (hi - lo) * (double)bins);
        if (k >= bins)
            k = bins - 1;
        counts[k]++;
        counted++;
    }
    return counted;
}
