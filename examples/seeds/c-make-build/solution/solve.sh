#!/bin/bash
# Reference solution: replace the broken Makefile, build with make, run the tool.
set -euo pipefail
cd /app
cat > Makefile <<'MAKE'
# Build numstat from src/: objects in build/, header dependencies from gcc -MMD.
.RECIPEPREFIX = >
CC = gcc
CFLAGS = -Wall -Wextra -O2 -MMD -MP
LDLIBS = -lm
SRCS = $(wildcard src/*.c)
OBJS = $(patsubst src/%.c,build/%.o,$(SRCS))

.PHONY: all clean
all: numstat

numstat: $(OBJS)
> $(CC) -o $@ $^ $(LDLIBS)

build/%.o: src/%.c | build
> $(CC) $(CFLAGS) -c $< -o $@

build:
> mkdir -p $@

clean:
> rm -rf build numstat

-include $(OBJS:.o=.d)
MAKE
make clean
make
make -q numstat
mkdir -p /app/out
./numstat /app/data/readings.txt > /app/out/stats.txt
