#include <stdio.h>
#include <string.h>

#include "money.h"

int main(void)
{
    static char line[4096];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        long long cents = 0;
        int status = parse_cents(line, &cents);
        if (status == 0)
            printf("ok %lld\n", cents);
        else
            printf("error %d\n", status);
    }
    return 0;
}
