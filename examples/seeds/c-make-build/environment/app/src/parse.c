#include "parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double *read_values(const char *path, size_t *count)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        perror(path);
        return NULL;
    }
    size_t cap = 64, n = 0;
    double *values = malloc(cap * sizeof *values);
    char line[256], name[128];
    double value;
    while (values != NULL && fgets(line, sizeof line, fp) != NULL) {
        const char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        if (sscanf(p, "%127s %lf", name, &value) != 2) {
            fprintf(stderr, "%s: bad line: %s", path, line);
            continue;
        }
        if (n == cap) {
            cap *= 2;
            double *grown = realloc(values, cap * sizeof *values);
            if (grown == NULL) {
                free(values);
                values = NULL;
                break;
            }
            values = grown;
        }
        values[n++] = value;
    }
    fclose(fp);
    *count = n;
    return values;
}
