#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"

int main(void)
{
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin) != NULL) {
        char *words[1024], *word = strtok(line, " \n");
        size_t count = 0;
        for (; word != NULL && count < 1024; word = strtok(NULL, " \n"))
            words[count++] = word;
        if (count < 3)
            continue;
        size_t n = count - 3, bins = strtoul(words[2], NULL, 10);
        double *values = malloc((n ? n : 1) * sizeof *values);
        size_t *counts = malloc((bins ? bins : 1) * sizeof *counts);
        for (size_t i = 0; i < n; i++)
            values[i] = strtod(words[i + 3], NULL);
        for (size_t k = 0; k < bins; k++)
            counts[k] = 7;
        long counted = histogram(values, n, strtod(words[0], NULL), strtod(words[1], NULL), bins, counts);
        if (counted < 0) {
            printf("error %ld\n", counted);
        } else {
            printf("%ld", counted);
            for (size_t k = 0; k < bins; k++)
                printf("%c%zu", k ? ' ' : '|', counts[k]);
            printf("\n");
        }
        free(values);
        free(counts);
    }
    return 0;
}
