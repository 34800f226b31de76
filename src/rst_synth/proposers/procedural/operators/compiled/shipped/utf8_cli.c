#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

int main(void)
{
    static char line[1 << 14];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        size_t n = strlen(line) / 2;
        unsigned char *bytes = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++) {
            unsigned value;
            sscanf(line + 2 * i, "%2x", &value);
            bytes[i] = (unsigned char)value;
        }
        printf("%ld\n", utf8_length(bytes, n));
        free(bytes);
    }
    return 0;
}
