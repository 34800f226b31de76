#include "tail.h"

#include <stdlib.h>
#include <string.h>

struct tail {
    char **lines;
    size_t cap, start, count;
};

struct tail *tail_new(size_t cap)
{
    struct tail *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->lines = calloc(cap, sizeof *t->lines);
    if (t->lines == NULL) {
        free(t);
        return NULL;
    }
    t->cap = cap;
    return t;
}

int tail_push(struct tail *t, const char *line)
{
    size_t n = strlen(line) + 1;
    char *copy = malloc(n);
    if (copy == NULL)
        return -1;
    memcpy(copy, line, n);
    if (t->count == t->cap) {
        free(t->lines[t->start]);
        t->lines[t->start] = copy;
        t->start = (t->start + 1) % t->cap;
    } else {
        t->lines[(t->start + t->count) % t->cap] = copy;
        t->count++;
    }
    return 0;
}

size_t tail_count(const struct tail *t)
{
    return t->count;
}

const char *tail_get(const struct tail *t, size_t k)
{
    return t->lines[(t->start + k) % t->cap];
}

void tail_free(struct tail *t)
{
    for (size_t k = 0; k < t->count; k++)
        free(t->lines[(t->start + k) % t->cap]);
    free(t->lines);
    free(t);
}
