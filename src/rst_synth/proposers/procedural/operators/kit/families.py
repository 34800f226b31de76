"""Bases of the operator families that share a shape: a tool with a usage contract, a report over a table, a
running service. Each base says what its steps' deliverables are for and writes the part of the solution
every member repeats; what a member draws, computes and checks stays in the member."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import Operator, q
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, write_tool


def folders_of(*paths: str) -> str:
    """`mkdir -p` of the folders of `paths`, each once, in order."""
    return "mkdir -p " + " ".join(dict.fromkeys(q(path.rsplit("/", 1)[0] or "/") for path in paths))


class ToolOperator(Operator):
    """A command-line tool with a usage contract: written from shipped source (`main`), run on the workflow's
    artifact, tested on inputs its tests make up, refusing bad arguments with exit 2
    (`testkit.assert_usage_error`)."""

    purpose = Purpose.TOOL
    tools: tuple[str, ...] = ("python3",)
    weight = 3.0

    @staticmethod
    def tool_solution(tool: str, code: str, call: str, run: str, *outputs: str) -> str:
        """Bash that makes the folders of the tool and its outputs, writes the tool and runs it (`run`)."""
        return f"{folders_of(tool, *outputs)}\n{write_tool(tool, code, call)}\n{run}"

    @staticmethod
    def executable(tool: str) -> Artifact:
        """The tool as a produced artifact."""
        return Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)


class ReportOperator(Operator):
    """A report over a table (or another domain file): a script from shipped source computes figures the
    person in the story reads, and the tests compute them again from the input."""

    purpose = Purpose.REPORT
    tools: tuple[str, ...] = ("python3",)

    @staticmethod
    def report_solution(code: str, *outputs: str, call: str = "main()") -> str:
        """Bash that makes the outputs' folders and runs the report's code once."""
        script = python_script(code, call)
        return f"{folders_of(*outputs)}\n{script}" if outputs else script


class ServiceOperator(Operator):
    """A step on a service the workflow runs: it starts, supervises or speaks to it, and its tests find the
    service by what it runs and the port it listens on (`testkit.serving`, `port_of`), never by an argument's
    position."""

    purpose = Purpose.SERVE
