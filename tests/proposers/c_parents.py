"""A small C project for the compiled-program operators' tests: its sources as task inputs, a parent
task that builds it with make and runs it, and the discovery such a parent gives (without a container)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operators.kit.workflow import plant
from tests.proposers.local_step import LocalStep
from tests.support.tasks import BASE_DOCKERFILE, write_task

MAIN_C = """#include <stdio.h>
#include "tally.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\\n", argv[0]);
        return 2;
    }
    struct tally t;
    if (tally_file(argv[1], &t) != 0) {
        perror(argv[1]);
        return 1;
    }
    printf("count=%ld\\nsum=%.2f\\nrms=%.3f\\n", t.count, t.sum, tally_rms(&t));
    return 0;
}
"""
TALLY_C = """#include "tally.h"

#include <math.h>
#include <stdio.h>

double tally_square(double x); /* a helper of this file, in no header */

int tally_file(const char *path, struct tally *t)
{
    FILE *fp = fopen(path, "r");
    double x;
    if (fp == NULL)
        return -1;
    t->count = 0;
    t->sum = t->squares = 0.0;
    while (fscanf(fp, "%lf", &x) == 1) {
        t->count++;
        t->sum += x;
        t->squares += tally_square(x);
    }
    fclose(fp);
    return 0;
}

double tally_square(double x)
{
    return x * x;
}

double tally_rms(const struct tally *t)
{
    return t->count ? sqrt(t->squares / (double)t->count) : 0.0;
}
"""
TALLY_H = """#ifndef TALLY_H
#define TALLY_H

struct tally {
    long count;
    double sum, squares;
};

int tally_file(const char *path, struct tally *t);
double tally_rms(const struct tally *t);

#endif
"""
NUMBERS = "".join(f"{(k * 37) % 101 - 20}.{k % 10}\n" for k in range(60))
SOURCES = {"/app/src/main.c": MAIN_C, "/app/src/tally.c": TALLY_C, "/app/src/tally.h": TALLY_H}
MAKEFILE = """.RECIPEPREFIX = >
CFLAGS = -std=c11 -O2 -Wall
tally: build/main.o build/tally.o
> $(CC) -o $@ $^ -lm
build/%.o: src/%.c src/tally.h
> @mkdir -p build
> $(CC) $(CFLAGS) -c $< -o $@
"""
C_DOCKERFILE = (
    BASE_DOCKERFILE
    + "RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev make"
    + " && rm -rf /var/lib/apt/lists/*\n"
    + "".join(plant(path, text) for path, text in SOURCES.items())
    + plant("/app/data/numbers.txt", NUMBERS)
)
PARENT_SOLVE = f"""cat > /app/Makefile <<'MAKE'
{MAKEFILE}MAKE
make -C /app
mkdir -p /app/out
/app/tally /app/data/numbers.txt > /app/out/tally.txt
"""
INSTRUCTION = (
    "`/app/src` holds the sources of `tally`, which sums the numbers of a file. Write `/app/Makefile` so that "
    "`make` in `/app` builds `/app/tally`, then run `/app/tally /app/data/numbers.txt` and save what it prints to "
    "`/app/out/tally.txt`.\n"
)
PROGRAM_DETAILS = {"elf": "shared", "interp": True, "needed": ["libm.so.6", "libc.so.6"]}


def c_parent(root: Path, name: str = "tally", then: str = "") -> Path:
    """A parent task: the sources and the data are inputs of the image, the solution builds and runs the tool
    (and runs `then`, an earlier step's solution)."""
    test = "from pathlib import Path\n\ndef test_parent_ran():\n    assert Path('/app/.parent-done').exists()\n"
    return write_task(
        root,
        name=name,
        solve=PARENT_SOLVE + then + "\ntouch /app/.parent-done\n",
        tests={"test_parent.py": test},
        instruction=INSTRUCTION,
        dockerfile=C_DOCKERFILE,
    )


def source_artifacts(sources: dict[str, str] = SOURCES) -> list[Artifact]:
    found = []
    for path, text in sources.items():
        kind, details, sample = classify(path, text.encode())
        found.append(
            Artifact(path=path, kind=kind, size=len(text), details=details, sample=sample, new=False, input=True)
        )
    return found


def c_discovery(
    *, sources: dict[str, str] = SOURCES, details: dict[str, object] | None = None, extra: list[Artifact] = ()
) -> tuple[Artifact, Discovery]:
    """The program artifact and the discovery of the parent above, read off its files instead of a container."""
    program = Artifact(path="/app/tally", kind=Kind.EXECUTABLE, size=16000, executable=True)
    program.details = dict(PROGRAM_DETAILS if details is None else details)
    kind, makefile_details, sample = classify("/app/Makefile", MAKEFILE.encode())
    makefile = Artifact(path="/app/Makefile", kind=kind, size=len(MAKEFILE), details=makefile_details, sample=sample)
    data_kind, data_details, data_sample = classify("/app/data/numbers.txt", NUMBERS.encode())
    data = Artifact(
        path="/app/data/numbers.txt",
        kind=data_kind,
        size=len(NUMBERS),
        details=data_details,
        sample=data_sample,
        new=False,
        input=True,
    )
    found = [program, makefile, data, *source_artifacts(sources), *extra]
    return program, Discovery(workdir="/app", artifacts=found, tools=["make", "gcc", "python3", "apt-get"])


def built_locally() -> bool:
    """Whether this machine can build the project (the checks of a step then run here, without Docker)."""
    return all(shutil.which(tool) for tool in ("gcc", "make", "readelf", "nm"))


def local_parent(local: LocalStep) -> None:
    """The parent's files below the step's root: the sources, the data, the Makefile and the built program."""
    for path, text in {**SOURCES, "/app/data/numbers.txt": NUMBERS, "/app/Makefile": MAKEFILE}.items():
        local.put(path, text)
    subprocess.run(["make", "-C", str(local.path("/app"))], check=True, capture_output=True)
