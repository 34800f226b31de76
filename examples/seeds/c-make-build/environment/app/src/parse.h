#ifndef NUMSTAT_PARSE_H
#define NUMSTAT_PARSE_H

#include <stddef.h>

/* Reads "<sensor> <value>" lines; skips blank lines and lines starting with '#'.
 * Returns a malloc'd array of values and stores its length in *count, or NULL on error. */
double *read_values(const char *path, size_t *count);

#endif
