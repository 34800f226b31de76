"""Build-system work on a program the workflow compiled with make: install and uninstall targets
that honour DESTDIR and PREFIX, proven by a from-scratch build and staged installs in a copy."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
PREFIXES = ("/opt/{name}", "/srv/{name}", "/opt/tools/{name}")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,39}")

COPY_PY = """
SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".hpp", ".s", ".S")


def source_copy(makedir, dest):
    # The Makefile and every file of a folder that holds sources: what a fresh checkout would have.
    makedir, dest = pathlib.Path(makedir), pathlib.Path(dest)
    dest.mkdir(parents=True)
    shutil.copy2(makedir / MAKEFILE, dest / MAKEFILE)
    for path in sorted(makedir.rglob("*")):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES and not path.relative_to(makedir).parts[0] == "build":
            target = dest / path.relative_to(makedir)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return dest


def make(directory, *args):
    return subprocess.run(["make", "-C", str(directory), *args], capture_output=True, text=True, timeout=600)
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
        # A recipe prefix of our own: the Makefile may have set .RECIPEPREFIX, and a tab is easy to lose.
        block = f"""
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
        solution = f"""cat >> {q(makefile.path)} <<'MAKE'
{block.rstrip()}
MAKE"""
        tests = f"""
MAKEDIR, MAKEFILE, PROGRAM = {makedir!r}, {makefile.name!r}, {program!r}
PREFIX, STAGED_PREFIX = {prefix!r}, {staged_prefix!r}
{COPY_PY}

def test_{ctx.tag}_install_in_place_uses_the_built_program(tmp_path):
    program = pathlib.Path(MAKEDIR) / PROGRAM
    before = program.stat().st_mtime_ns
    done = make(MAKEDIR, "install", f"DESTDIR={{tmp_path}}", f"PREFIX={{PREFIX}}")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    target = tmp_path / PREFIX.lstrip("/") / "bin" / PROGRAM
    assert target.is_file() and stat.S_IMODE(target.stat().st_mode) == 0o755
    assert target.read_bytes() == program.read_bytes() and program.stat().st_mtime_ns == before


def test_{ctx.tag}_fresh_build_installs_and_uninstalls(tmp_path):
    copy = source_copy(MAKEDIR, tmp_path / "checkout")
    stage = tmp_path / "stage"
    done = make(copy, "install", f"DESTDIR={{stage}}", f"PREFIX=/{{STAGED_PREFIX}}")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    target = stage / STAGED_PREFIX / "bin" / PROGRAM
    assert target.is_file() and stat.S_IMODE(target.stat().st_mode) == 0o755
    assert target.read_bytes() == (copy / PROGRAM).read_bytes()
    again = make(copy, "install", f"DESTDIR={{stage}}", f"PREFIX=/{{STAGED_PREFIX}}")
    assert again.returncode == 0, again.stderr[-1500:]
    neighbour = target.parent / "keep.txt"
    neighbour.write_text("not ours\\n")
    done = make(copy, "uninstall", f"DESTDIR={{stage}}", f"PREFIX=/{{STAGED_PREFIX}}")
    assert done.returncode == 0, done.stderr[-1500:]
    assert not target.exists() and neighbour.read_text() == "not ours\\n" and target.parent.is_dir()


def test_{ctx.tag}_default_prefix_is_usr_local(tmp_path):
    copy = source_copy(MAKEDIR, tmp_path / "checkout")
    done = make(copy, "install", f"DESTDIR={{tmp_path / 'root'}}")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert (tmp_path / "root" / "usr" / "local" / "bin" / PROGRAM).is_file()
"""
        instruction = (
            f"Next, give `{makefile.path}` an `install` and an `uninstall` target for `{program}`, the way "
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
