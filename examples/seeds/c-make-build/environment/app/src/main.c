#include <stdio.h>
#include <stdlib.h>

#include "parse.h"
#include "stats.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s READINGS_FILE\n", argv[0]);
        return 2;
    }
    size_t n = 0;
    double *values = read_values(argv[1], &n);
    if (values == NULL || n == 0) {
        fprintf(stderr, "%s: no readings\n", argv[1]);
        free(values);
        return 1;
    }
    struct summary s = summarise(values, n);
    printf("count=%zu\n", s.count);
    printf("min=%.3f\n", s.min);
    printf("max=%.3f\n", s.max);
    printf("mean=%.3f\n", s.mean);
    printf("stddev=%.3f\n", s.stddev);
    printf("median=%.3f\n", s.median);
    free(values);
    return 0;
}
