"""Build-system work on a program the workflow compiled with make: install and uninstall targets
that honour DESTDIR and PREFIX, proven by a from-scratch build and staged installs in a copy."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.shipped import install_targets
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
PREFIXES = ("/opt/{name}", "/srv/{name}", "/opt/tools/{name}")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,39}")

TESTS = [
    "test_install_in_place_uses_the_built_program",
    "test_fresh_build_installs_and_uninstalls",
    "test_default_prefix_is_usr_local",
]
"""The step's checks, in `shipped/install_targets.py`."""


def install_block(program: str) -> str:
    """The targets the step appends to the Makefile. A recipe prefix of its own: the Makefile may have set
    .RECIPEPREFIX, and a tab is easy to lose."""
    return f"""
# Installation: DESTDIR stages the files, PREFIX chooses the layout.
PREFIX ?= /usr/local
.RECIPEPREFIX := >
.PHONY: install uninstall
install: {program}
> mkdir -p "$(DESTDIR)$(PREFIX)/bin"
> install -m 0755 {program} "$(DESTDIR)$(PREFIX)/bin/{program}"
uninstall:
> rm -f "$(DESTDIR)$(PREFIX)/bin/{program}"
"""


def _makefile(artifact: Artifact, discovery: Discovery) -> Artifact | None:
    for name in MAKEFILES:
        for found in discovery.artifacts:
            if found.path == f"{artifact.directory}/{name}":
                return found
    return None


@register
class MakeInstallTargets(Operator):
    """`make install` / `make uninstall` with DESTDIR and PREFIX for a program the Makefile builds."""

    name = "make-install-targets"
    purpose = Purpose.RELEASE
    changes_input = True
    kinds = (Kind.EXECUTABLE,)
    tools = ("make",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        makefile = _makefile(artifact, discovery)
        # The targets go into the Makefile: one the task gives (an input) is not the step's to change.
        if makefile is None or makefile.input or not _NAME.fullmatch(artifact.name):
            return False
        if inside_git(artifact.path, discovery):
            return False
        text = makefile.sample
        return (
            makefile.size <= len(text.encode("utf-8"))  # the whole Makefile is known
            and re.search(rf"^{re.escape(artifact.name)}\s*:", text, re.MULTILINE) is not None
            and re.search(r"^(install|uninstall)\s*:|\b(PREFIX|DESTDIR|BINDIR)\b", text, re.MULTILINE) is None
            and discovery.has_tool("python3")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        makefile = _makefile(artifact, ctx.discovery)
        assert makefile is not None
        makedir, program = artifact.directory, artifact.name
        prefix = ctx.rng.choice(PREFIXES).format(name=program)  # only ever under the tests' DESTDIR
        staged_prefix = f"usr/x{ctx.rng.randrange(100, 1000)}"  # under the test's own stage folder
        block = install_block(program)
        solution = f"""cat >> {q(makefile.path)} <<'MAKE'
{block.rstrip()}
MAKE"""
        tests = render(
            install_targets,
            TESTS,
            tag=ctx.tag,
            MAKEDIR=makedir,
            MAKEFILE=makefile.name,
            PROGRAM=program,
            PREFIX=prefix,
            STAGED_PREFIX=staged_prefix,
        )
        instruction = (
            f"Give `{makefile.path}` an `install` and an `uninstall` target for `{program}`, the way "
            f"packagers expect. `make install` builds `{program}` first when it is missing or out of date, then "
            f"copies it to `$(DESTDIR)$(PREFIX)/bin/{program}` with mode `0755`, creating the directory when "
            "needed; `PREFIX` defaults to `/usr/local`, `DESTDIR` to nothing, and both can be given on the "
            "`make` command line (`make install DESTDIR=/tmp/stage PREFIX=/usr` puts the program at "
            f"`/tmp/stage/usr/bin/{program}`). Installing twice in a row succeeds. "
            f"`make uninstall` (with the same `DESTDIR` and `PREFIX`) removes exactly that file and leaves the "
            "directory and anything else in it alone. The Makefile must keep working from a fresh checkout: "
            f"a copy of `{makefile.name}` and the source files (the `.c` and `.h` files in their folders) in "
            f"another directory builds and installs there with `make install` alone. In `{makedir}` itself, where "
            f"`{artifact.path}` is built already, `make install DESTDIR=... PREFIX={prefix}` must install that "
            "program as it is, without rebuilding it."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[],
        )
