"""Which of a compiled program's code the task's runs reach: a coverage build (`--coverage`, `-O0`) run
the way the task runs the program, and gcov's line and function counts per source file as a report.
The tests make their own coverage build in a scratch folder, run it the same way and read gcov's JSON
(both from shipped/coverage.py)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.project import CompiledOperator, c_project, private_libraries
from rst_synth.proposers.procedural.operators.compiled.shipped import coverage
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

HEADER = ["source", "lines", "executed", "percent", "functions", "called"]


@register
class CCoverageReport(CompiledOperator):
    """Line and function coverage of a program's sources over the task's runs, measured with gcov."""

    name = "c-coverage-report"
    purpose = Purpose.REPORT
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
        params: dict[str, Any] = {  # the step's parameters of shipped/coverage.py
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
        solution = f"{python_script(render(coverage, ['main'], **params), 'main()')}\ncat {q(out)}"
        tests = render(coverage, ["test_coverage_report"], tag=ctx.tag, **params)
        names = ", ".join(f"`{PurePosixPath(s).name}`" for s in sorted(sources, key=lambda s: PurePosixPath(s).name))
        inputs = " and ".join(f"`{p}`" for p in project.inputs)
        flags = " ".join(filter(None, [project.std, *(f"-I{d}" for d in (project.source_dir, *project.include_dirs))]))
        instruction = (
            f"Measure how much of `{project.name}`'s code the task's runs reach. In a scratch folder (leave "
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
