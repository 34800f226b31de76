"""Which of a compiled program's code the task's runs reach: a coverage build (`--coverage`, `-O0`) run
the way the task runs the program, and gcov's line and function counts per source file as a report.
The tests make their own coverage build in a scratch folder, run it the same way and read gcov's JSON."""

from __future__ import annotations

from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.project import (
    CompiledOperator,
    assignments,
    c_project,
    private_libraries,
)
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, work_root

HEADER = ["source", "lines", "executed", "percent", "functions", "called"]

COVERAGE_PY = r"""
def coverage_rows(build):
    # Build with -O0 --coverage in `build`, make the runs, and read gcov's JSON for each source.
    build.mkdir(parents=True)
    flags = [STD] if STD else []
    flags += [f"-I{d}" for d in [SRCDIR, *INCLUDE_DIRS]]
    objects = []
    for source in SOURCES:
        obj = build / (pathlib.Path(source).stem + ".o")
        done = subprocess.run([COMPILER, "-O0", "--coverage", *flags, "-c", source, "-o", str(obj)],
                              capture_output=True, text=True, cwd=build)
        assert done.returncode == 0, done.stderr[-1500:]
        objects.append(str(obj))
    program = build / PROGRAM_NAME
    done = subprocess.run([COMPILER, "--coverage", "-o", str(program), *objects, *LIBRARIES], capture_output=True,
                          text=True, cwd=build)
    assert done.returncode == 0, done.stderr[-1500:]
    for args in [[]] + [[p] for p in INPUTS]:
        scratch = build.parent / "run"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        copies = []
        for arg in args:
            shutil.copy2(arg, scratch / pathlib.Path(arg).name)
            copies.append(str(scratch / pathlib.Path(arg).name))
        try:
            subprocess.run([str(program), *copies], cwd=scratch, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=20)
        except subprocess.TimeoutExpired:
            pass
    rows = []
    for source in sorted(SOURCES, key=lambda s: pathlib.Path(s).name):
        name = pathlib.Path(source).name
        gcda = build / (pathlib.Path(source).stem + ".gcda")
        out = subprocess.run(["gcov", "--json-format", "--stdout", str(gcda)], capture_output=True, text=True,
                             cwd=build)
        lines, functions = {}, {}
        for record in out.stdout.splitlines():
            for entry in json.loads(record)["files"]:
                if pathlib.Path(entry["file"]).name != name:
                    continue
                for line in entry["lines"]:
                    lines[line["line_number"]] = lines.get(line["line_number"], 0) + line["count"]
                for function in entry["functions"]:
                    functions[function["name"]] = functions.get(function["name"], 0) + function["execution_count"]
        executed = sum(1 for count in lines.values() if count > 0)
        share = decimal.Decimal(100 * executed) / decimal.Decimal(len(lines)) if lines else decimal.Decimal(0)
        percent = share.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
        called = sum(1 for count in functions.values() if count > 0)
        rows.append([name, str(len(lines)), str(executed), str(percent), str(len(functions)), str(called)])
    return rows


def test___TAG___coverage_report(tmp_path):
    with open(OUT, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == HEADER
    assert rows[1:] == coverage_rows(tmp_path / "build")
"""
"""The step's check; `__TAG__` is the step's tag, the constants come before it."""


@register
class CCoverageReport(CompiledOperator):
    """Line and function coverage of a program's sources over the task's runs, measured with gcov."""

    name = "c-coverage-report"
    kinds = (Kind.EXECUTABLE,)
    tools = ("gcc", "python3")
    weight = 3.0
    final = True

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        project = c_project(artifact, discovery)
        private = private_libraries(artifact, discovery)
        # One source says nothing by comparison; a program relinked against a lineage library is the same code.
        return project is not None and bool(project.sources) and bool(project.inputs) and not private

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        project = c_project(artifact, ctx.discovery)
        assert project is not None
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/coverage", f"{project.name}_coverage.csv")
        sources = [project.main, *project.sources]
        constants = {
            "OUT": out,
            "HEADER": HEADER,
            "SOURCES": sources,
            "SRCDIR": project.source_dir,
            "INCLUDE_DIRS": list(project.include_dirs),
            "STD": project.std,
            "COMPILER": project.compiler,
            "LIBRARIES": list(project.libraries),
            "PROGRAM_NAME": project.name,
            "INPUTS": list(project.inputs),
        }
        program = assignments(constants) + COVERAGE_PY.split("\n\ndef test___TAG___")[0]
        solution = f"""python3 - <<'PY'
import csv, decimal, json, pathlib, shutil, subprocess, tempfile
{program}

rows = coverage_rows(pathlib.Path(tempfile.mkdtemp()) / "build")
pathlib.Path(OUT).parent.mkdir(parents=True, exist_ok=True)
with open(OUT, "w", newline="", encoding="utf-8") as f:
    csv.writer(f, lineterminator="\\n").writerows([HEADER, *rows])
PY
cat {q(out)}"""
        tests = assignments(constants) + COVERAGE_PY.replace("__TAG__", ctx.tag)
        names = ", ".join(f"`{PurePosixPath(s).name}`" for s in sorted(sources, key=lambda s: PurePosixPath(s).name))
        inputs = " and ".join(f"`{p}`" for p in project.inputs)
        flags = " ".join(filter(None, [project.std, *(f"-I{d}" for d in (project.source_dir, *project.include_dirs))]))
        instruction = (
            f"Next, measure how much of `{project.name}`'s code the task's runs reach. In a scratch folder (leave "
            f"`{project.source_dir}` as it is), compile each of its sources ({', '.join(f'`{s}`' for s in sources)}) "
            f"with `{project.compiler} -O0 --coverage {flags}` and link them (`--coverage`"
            f"{', ' + ' '.join(project.libraries) if project.libraries else ''}) into a coverage build of the program. "
            f"Run it once with no argument and once with each of {inputs} as its only argument (a fresh copy of the "
            "file in a scratch working directory, standard input empty; a run still going after 20 seconds is "
            "stopped), so that the counts add up over the runs. Then read them with `gcov --json-format` and write "
            f"`{out}`: a CSV with the header `{','.join(HEADER)}` and one row per source file, in file-name order "
            f"({names}), where `source` is the file name, `lines` the number of distinct line numbers gcov reports "
            "for that file, `executed` how many of them ran at least once, `percent` 100 × executed / lines with two "
            "decimals (halves rounded up), `functions` the number of functions gcov reports for the file and "
            "`called` how many of them ran at least once."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[csv_output(out, HEADER, HEADER[1:])],
        )
