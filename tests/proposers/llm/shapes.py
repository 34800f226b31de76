"""Model replies in the shapes a small local model sent (issue: "the llm proposer meets a real
model"), written for the tests: each shape as the scripted server replays it, with the good reply
that follows a re-ask. The files are plain bash and pytest that the fake sandbox understands too, so
the same candidate runs on FakeSandbox and in Docker (the fake sandbox knows `touch` and
`.exists()`; newer fakes also `echo > FILE` and `read_text()` comparisons, so the files use both).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.support.llm_proposer import Reply, fence

STEPS = """\
mkdir -p /app/report
touch /app/report/upper.txt
echo HELLO > /app/report/upper.txt
"""
TESTS = """\
from pathlib import Path


def test_upper_case_copy():
    assert Path("/app/report/upper.txt").exists()
    assert Path("/app/report/upper.txt").read_text().strip() == "HELLO"
"""
WRONG_TESTS = """\
from pathlib import Path


def test_lower_case_copy():
    assert Path("/app/report/lower.txt").exists()
"""
ADDENDUM = """\
Then create the directory `/app/report` and write the word of `/app/out.txt` in upper case, followed by a
newline, to `/app/report/upper.txt`.
"""

GOOD = {
    "extend": "Here are the steps.\n\n" + fence("bash", "solution/steps.sh", STEPS),
    "realign_tests": fence("python", "tests/test_step_r1.py", TESTS),
    "realign_instruction": fence("markdown", "instruction_addendum.md", ADDENDUM),
}

# --- the shapes --------------------------------------------------------------------------------

ECHOED_RULES = """\
```bash path=solution/steps.sh
set -euo pipefail
# 1. Build on what the parent's solution produced: read at least one of its outputs.
# 2. Write NEW files. Do not delete, move or change anything the parent's tests check.
# 3. Be deterministic: no dates, random values, host names, PIDs or network in any output.
```
"""

PATH_ASSIGNED_HEREDOC = f"""\
```bash
path=solution/steps.sh
cat <<EOF >> "$path"
{STEPS.rstrip()}
EOF
```
"""

TESTS_PATH_ASSIGNED = f"```python\npath=tests/test_step_r1.py\n{TESTS}```\n"

TESTS_PATH_COMMENT = f"```python\n# tests/test_step_r1.py\n{TESTS}```\n"

UNCLOSED_BRACKET = """\
```python path=tests/test_step_r1.py
from pathlib import Path


def test_upper_case_copy():
    assert Path("/app/report/upper.txt").read_text().strip() in ("HELLO",
```
"""

WITH_IMPORT = """\
import re
from pathlib import Path


def test_upper_case_copy():
    assert Path("/app/report/upper.txt").exists()
    assert re.fullmatch(r"[A-Z]+", Path("/app/report/upper.txt").read_text().strip())
    assert Path("/app/report/upper.txt").read_text().strip() == "HELLO"
"""

MISSING_IMPORT = "```python path=tests/test_step_r1.py\n" + WITH_IMPORT.removeprefix("import re\n") + "```\n"

PROSE_INSTRUCTION = f"""\
Here is the text to append to the instruction:

{ADDENDUM}
Let me know if you would like any changes!
"""

PROSE_STEPS = "To extend the workflow, create a report directory and write the word in upper case into it."


@dataclass(frozen=True)
class Shape:
    """One reply shape: the stage it answers, the reply, and what follows a re-ask."""

    name: str
    stage: str
    reply: str
    before: str
    """What happened to it before (the issue's run and the code of then)."""
    reask: str = ""
    """The answer to the re-ask ("" when the shape is recovered without one)."""
    recovered: dict[str, str] = field(default_factory=dict)
    """Parts of the accepted child (`Parts` fields: steps, tests, addendum) it must end up with."""

    def replies(self) -> dict[str, str | Reply | list[str | Reply]]:
        replies: dict[str, str | Reply | list[str | Reply]] = {**GOOD, self.stage: self.reply}
        if self.reask:
            replies["reask"] = self.reask
        return replies


SHAPES = [
    Shape(
        "steps only comments and set",
        "extend",
        ECHOED_RULES,
        before="passed the parser; realign_tests and realign_instruction paid for a child that does nothing",
        reask=fence("bash", "solution/steps.sh", STEPS),
        recovered={"steps": STEPS},
    ),
    Shape(
        "path=solution/steps.sh then cat <<EOF >> $path",
        "extend",
        PATH_ASSIGNED_HEREDOC,
        before="taken as the steps: the oracle appends a heredoc to ./solution/steps.sh, the new work never runs",
        recovered={"steps": STEPS},
    ),
    Shape(
        "path=tests/test_step_r1.py first line",
        "realign_tests",
        TESTS_PATH_ASSIGNED,
        before="valid Python: a division of names, NameError at import in the oracle",
        recovered={"tests": TESTS},
    ),
    Shape(
        "# tests/test_step_r1.py first line",
        "realign_tests",
        TESTS_PATH_COMMENT,
        before="kept as a comment in the module",
        recovered={"tests": TESTS},
    ),
    Shape(
        "test module with an unclosed bracket",
        "realign_tests",
        UNCLOSED_BRACKET,
        before="invalid_python: the candidate ended, no re-ask",
        reask=fence("python", "tests/test_step_r1.py", TESTS),
        recovered={"tests": TESTS},
    ),
    Shape(
        "test module missing `import re`",
        "realign_tests",
        MISSING_IMPORT,
        before="passed the parser; NameError in the oracle (tests_failed)",
        reask=fence("python", "tests/test_step_r1.py", WITH_IMPORT),
        recovered={"tests": WITH_IMPORT},
    ),
    Shape(
        "instruction in plain prose, no fence",
        "realign_instruction",
        PROSE_INSTRUCTION,
        before="no_code_block: the candidate ended, no re-ask",
        recovered={"addendum": ADDENDUM},
    ),
    Shape(
        "extend in plain prose, no fence",
        "extend",
        PROSE_STEPS,
        before="no_code_block: the candidate ended, no re-ask",
        reask=fence("bash", "solution/steps.sh", STEPS),
        recovered={"steps": STEPS},
    ),
]
