#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvfield.h"

/* Queries and answers escape LF, CR and backslash as \\n, \\r and \\\\ to keep one per line. */
static size_t unescape(const char *in, char *out)
{
    size_t k = 0;
    for (size_t i = 0; in[i] != '\0'; i++) {
        if (in[i] == '\\' && in[i + 1] != '\0') {
            i++;
            out[k++] = in[i] == 'n' ? '\n' : in[i] == 'r' ? '\r' : in[i];
        } else {
            out[k++] = in[i];
        }
    }
    out[k] = '\0';
    return k;
}

static void put_escaped(const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '\n')
            fputs("\\n", stdout);
        else if (*s == '\r')
            fputs("\\r", stdout);
        else if (*s == '\\')
            fputs("\\\\", stdout);
        else
            putchar(*s);
    }
}

int main(void)
{
    static char line[1 << 14];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        size_t n = strlen(line);
        char *field = malloc(n + 1);
        unescape(line, field);
        char *quoted = csv_field(field);
        put_escaped(quoted);
        putchar('\n');
        free(quoted);
        free(field);
    }
    return 0;
}
