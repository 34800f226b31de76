#include "money.h"

#include <ctype.h>
#include <limits.h>

static int push(unsigned long long *cents, unsigned digit, unsigned long long limit)
{
    if (*cents > (limit - digit) / 10)
        return -1;
    *cents = *cents * 10 + digit;
    return 0;
}

int parse_cents(const char *text, long long *out)
{
    const char *p = text;
    int negative = *p == '-';
    p += negative;
    unsigned long long limit = negative ? (unsigned long long)LLONG_MAX + 1u : (unsigned long long)LLONG_MAX;
    unsigned long long cents = 0;
    int digits = 0, overflow = 0;
    for (; isdigit((unsigned char)*p); p++, digits++)
        overflow |= push(&cents, (unsigned)(*p - '0'), limit);
    if (digits == 0)
        return -1;
    if (*p == '.') {
        if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]) || p[3] != '\0')
            return -1;
        overflow |= push(&cents, (unsigned)(p[1] - '0'), limit);
        overflow |= push(&cents, (unsigned)(p[2] - '0'), limit);
    } else if (*p != '\0') {
        return -1;
    } else {
        overflow |= push(&cents, 0, limit);
        overflow |= push(&cents, 0, limit);
    }
    if (overflow)
        return -2;
    *out = negative ? -(long long)(cents - 1) - 1 : (long long)cents;
    return 0;
}
