#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tail.h"

int main(void)
{
    static char line[1 << 14];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *bar = strchr(line, '|');
        struct tail *t = tail_new(strtoul(line, NULL, 10));
        while (bar != NULL) {
            char *word = bar + 1;
            bar = strchr(word, '|');
            if (bar != NULL)
                *bar = '\0';
            tail_push(t, word);
        }
        printf("%zu", tail_count(t));
        for (size_t k = 0; k < tail_count(t); k++)
            printf("|%s", tail_get(t, k));
        printf("\n");
        tail_free(t);
    }
    return 0;
}
