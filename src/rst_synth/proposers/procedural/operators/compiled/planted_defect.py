"""A C module with one planted defect next to a compiled project: to diagnose against its stated contract,
fix, build with its Makefile and run on a batch of queries. The tests compile the fixed module with
AddressSanitizer and UndefinedBehaviorSanitizer and compare it with the contract (a Python reference)
on queries they generate, and check the driver is the Makefile's build of the fixed sources."""

from __future__ import annotations

import random
import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.defect_modules import NUMERIC_MODULES, Module
from rst_synth.proposers.procedural.operators.compiled.defect_modules_text import TEXT_MODULES
from rst_synth.proposers.procedural.operators.compiled.project import CompiledOperator, c_project
from rst_synth.proposers.procedural.operators.compiled.shipped import defect_checks
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

MODULES: tuple[Module, ...] = (*NUMERIC_MODULES, *TEXT_MODULES)
SANITIZE = defect_checks.SANITIZE
TESTS = (
    "test_module_keeps_its_contract_under_the_sanitizers",
    "test_driver_is_the_build_of_the_fixed_sources",
    "test_answers_to_the_queries",
)


def _used(paths: set[str]) -> set[str]:
    """Modules a lineage has planted already (their fixed sources are among `paths`)."""
    found = (re.search(r"/incoming/[^/]+/(\w+)\.c$", p) for p in paths)
    return {m.group(1) for m in found if m}


def _makefile(module: Module) -> str:
    return f"""# {module.name}-cli: the command-line driver of the {module.name} module.
.RECIPEPREFIX = >
CC = gcc
CFLAGS = -std=c11 -O2 -Wall -Wextra
{module.name}-cli: {module.name}.c {module.name}_cli.c {module.name}.h
> $(CC) $(CFLAGS) -o $@ {module.name}.c {module.name}_cli.c -lm
"""


def queries_of(module: Module, seed: int) -> list[str]:
    """The module's generated queries for `seed`, as the tests generate them (its shipped `queries`)."""
    lines = module.python.queries(random.Random(seed))
    assert isinstance(lines, list)
    return [str(line) for line in lines]


@register
class CPlantedDefect(CompiledOperator):
    """Diagnose and fix a planted C module against its contract; build its driver and run it."""

    name = "c-planted-defect"
    purpose = Purpose.REPAIR
    kinds = (Kind.EXECUTABLE,)
    tools = ("gcc", "make")
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        open_modules = {m.name for m in MODULES} - _used(discovery.paths())
        return bool(open_modules) and c_project(artifact, discovery) is not None and discovery.has_tool("python3")

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        project = c_project(artifact, ctx.discovery)
        assert project is not None
        done = _used(ctx.taken_paths | {p for h in ctx.history for p in h.produces})
        module = ctx.rng.choice([m for m in MODULES if m.name not in done] or list(MODULES))
        defect = ctx.rng.choice(sorted(module.defects))
        folder = planted_dir(ctx)
        name = module.name
        source, cli = f"{folder}/{name}.c", f"{name}-cli"
        ctx.taken_paths.add(source)
        answers = fresh_path(ctx, f"{work_root(ctx.discovery)}/out", f"{name}_answers.txt")
        seed = ctx.rng.randrange(10**6)
        planted = {
            f"{folder}/{name}.h": module.header_file(),
            source: module.planted(defect),
            f"{folder}/{name}_cli.c": module.driver,
            f"{folder}/Makefile": _makefile(module),
            f"{folder}/queries.txt": "".join(line + "\n" for line in queries_of(module, seed)),
        }
        solution = f"""cat > {q(source)} <<'C'
{module.source.rstrip()}
C
make -C {q(folder)}
mkdir -p {q(answers.rsplit("/", 1)[0])}
{q(f"{folder}/{cli}")} < {q(f"{folder}/queries.txt")} > {q(answers)}"""
        checks = render(
            defect_checks,
            TESTS,
            tag=ctx.tag,
            FOLDER=folder,
            MODULE=name,
            CLI=cli,
            QUERIES=f"{folder}/queries.txt",
            ANSWERS=answers,
            SEEDS=[seed + 1, seed + 2, seed + 3],
            DRIVER=module.driver,
        )
        tests = render(module.python, ["reference", "queries"]) + "\n\n" + checks
        instruction = (
            f"A colleague has started `{name}`, a small C module for the `{project.name}` code base, in "
            f"`{folder}`: `{folder}/{name}.h` declares it, `{source}` implements it, `{folder}/{name}_cli.c` is its "
            f"command-line driver and `{folder}/Makefile` builds the driver `{folder}/{cli}`. The contract: "
            f"{module.contract}. `{source}` has a defect: for some inputs it breaks this contract, or does something "
            "AddressSanitizer, UndefinedBehaviorSanitizer or LeakSanitizer report (an access out of bounds, "
            f"undefined behaviour, a leak). Find and fix it in `{source}`, keeping the header and the driver as "
            "they are: compiled with `gcc -std=c11 -fsanitize=address,undefined` together with any driver, the "
            "fixed module must honour the contract on every input, with no sanitizer report. Then build the driver "
            f"with `make -C {folder}`: `{folder}/{cli}` must be what that Makefile makes of the fixed sources (up "
            "to date for `make -q`, and byte for byte what a fresh copy of the four files builds). Run it on "
            f"`{folder}/queries.txt`, saving its standard output to `{answers}` (create the folder): the driver reads "
            f"one query per line of standard input ({module.queries_text}) and prints one answer per line, "
            f"{module.answers_text}."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile="".join(plant(path, text) for path, text in planted.items()),
            produces=[
                Artifact(path=source, kind=Kind.C_SOURCE, details={"lines": module.source.count("\n")}),
                Artifact(path=answers, kind=Kind.TEXT),
            ],
        )
