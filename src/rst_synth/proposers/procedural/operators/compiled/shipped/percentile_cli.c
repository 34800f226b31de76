#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "percentile.h"

int main(void)
{
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin) != NULL) {
        char *words[1024], *word = strtok(line, " \n");
        size_t count = 0;
        for (; word != NULL && count < 1024; word = strtok(NULL, " \n"))
            words[count++] = word;
        if (count == 0)
            continue;
        size_t n = count - 1;
        double *values = malloc((n ? n : 1) * sizeof *values), *before = malloc((n ? n : 1) * sizeof *values);
        for (size_t i = 0; i < n; i++)
            values[i] = before[i] = strtod(words[i + 1], NULL);
        double out = 0.0;
        int status = percentile(values, n, strtod(words[0], NULL), &out);
        if (status != 0)
            printf("error %d", status);
        else
            printf("ok %.17g", out);
        printf("%s\n", n && memcmp(values, before, n * sizeof *values) ? " modified" : "");
        free(values);
        free(before);
    }
    return 0;
}
