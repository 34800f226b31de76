"""The llm proposer's reply parser on random and mutated replies: files, or a ReplyError whose
detail is one line and whose reason is a Reason."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rst_synth.proposers.llm.parse import Expect, ReplyError, parse_reply
from rst_synth.validator import Reason
from tests.fuzz.strategies import FUZZ, one_line, text_or_mutated

GOOD = (
    "Here is the step.\n\n"
    "```bash path=solution/steps.sh\nmkdir -p /app/report\nsort /app/data.csv > /app/report/sorted.csv\n```\n\n"
    "```python path=tests/test_step_sorted.py\nfrom pathlib import Path\n\n\ndef test_sorted():\n"
    "    lines = Path('/app/report/sorted.csv').read_text().splitlines()\n    assert lines == sorted(lines)\n```\n\n"
    "```markdown path=instruction_addendum.md\nThen write the rows of /app/data.csv, sorted, to "
    "/app/report/sorted.csv.\n```\n"
)
EXPECTS = [
    [
        Expect("solution/steps.sh", "bash", accept=("solution/*.sh",), new_work=True),
        Expect("environment/Dockerfile.append", "dockerfile", required=False),
    ],
    [Expect("tests/test_step_sorted.py", "python", accept=("tests/test_*.py",), new_work=True)],
    [Expect("instruction_addendum.md", "markdown", accept=("*.md",))],
    [
        Expect("solution/steps.sh", "bash", required=False, accept=("solution/*.sh",), new_work=True),
        Expect("tests/test_step_sorted.py", "python", required=False, accept=("tests/test_*.py",), new_work=True),
        Expect("instruction_addendum.md", "markdown", required=False, accept=("*.md",)),
    ],
]


@FUZZ
@given(
    text_or_mutated(GOOD),
    st.sampled_from(range(len(EXPECTS))),
    st.sampled_from([None, "stop", "length"]),
    st.booleans(),
)
def test_parse_reply(text: str, which: int, finish_reason: str | None, require_any: bool) -> None:
    try:
        files = parse_reply(text, EXPECTS[which], finish_reason=finish_reason, require_any=require_any)
    except ReplyError as exc:
        assert isinstance(exc.reason, Reason)
        assert one_line(exc.detail), repr(exc.detail)
        return
    assert all(isinstance(path, str) and isinstance(body, str) for path, body in files.items())
