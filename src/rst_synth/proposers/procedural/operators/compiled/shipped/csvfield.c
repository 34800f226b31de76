#include "csvfield.h"

#include <stdlib.h>
#include <string.h>

static int needs_quotes(const char *s, size_t n)
{
    if (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
        return 1;
    return strpbrk(s, ",\"\r\n") != NULL;
}

char *csv_field(const char *field)
{
    size_t n = strlen(field), quotes = 0;
    for (size_t i = 0; i < n; i++)
        quotes += field[i] == '"';
    if (!needs_quotes(field, n)) {
        char *copy = malloc(n + 1);
        if (copy != NULL)
            memcpy(copy, field, n + 1);
        return copy;
    }
    char *out = malloc(n + quotes + 3);
    if (out == NULL)
        return NULL;
    size_t k = 0;
    out[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (field[i] == '"')
            out[k++] = '"';
        out[k++] = field[i];
    }
    out[k++] = '"';
    out[k] = '\0';
    return out;
}
