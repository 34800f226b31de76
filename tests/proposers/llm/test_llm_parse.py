"""The reply parser: good replies become files, every malformed kind its own reason."""

from __future__ import annotations

import pytest

from rst_synth.proposers import ProposalError
from rst_synth.proposers.llm.parse import Expect, language_of_path, parse_reply, split_blocks

STEPS = Expect("solution/steps.sh", "bash", accept=("solution/*.sh",))
DOCKER = Expect("environment/Dockerfile.append", "dockerfile", required=False)
TESTS = Expect("tests/test_step_r1.py", "python", accept=("tests/test_*.py", "test_*.py"))
ADDENDUM = Expect("instruction_addendum.md", "markdown", accept=("*.md",))
CONFIG = Expect("task.toml", "toml")


def reason_of(text: str | None, expected: list[Expect], **kwargs: object) -> str:
    with pytest.raises(ProposalError) as caught:
        parse_reply(text, expected, **kwargs)  # type: ignore[arg-type]
    return caught.value.reason


def test_good_reply_with_paths_and_prose() -> None:
    reply = (
        "Sure. The steps:\n\n```bash path=solution/steps.sh\nmkdir -p /app/x\necho hi > /app/x/y\n```\n\n"
        "And the image:\n```dockerfile path=environment/Dockerfile.append\nRUN true\n```\nDone."
    )
    files = parse_reply(reply, [STEPS, DOCKER])
    assert files == {
        "solution/steps.sh": "mkdir -p /app/x\necho hi > /app/x/y\n",
        "environment/Dockerfile.append": "RUN true\n",
    }


def test_optional_block_may_be_absent_and_labels_vary() -> None:
    assert parse_reply("```sh path='./solution/steps.sh'\ntrue\n```", [STEPS, DOCKER]) == {
        "solution/steps.sh": "true\n"
    }
    assert parse_reply('```bash title="solution/steps.sh"\ntrue\n```', [STEPS]) == {"solution/steps.sh": "true\n"}
    assert parse_reply("```bash solution/steps.sh\ntrue\n```", [STEPS]) == {"solution/steps.sh": "true\n"}
    # An unlabelled block of the right language is taken; so is another tests/ path (mapped to ours).
    assert parse_reply("```bash\ntrue\n```", [STEPS]) == {"solution/steps.sh": "true\n"}
    files = parse_reply("```python path=tests/test_report.py\ndef test_x():\n    pass\n```", [TESTS])
    assert list(files) == ["tests/test_step_r1.py"]


def test_markdown_may_hold_a_longer_fence_and_the_last_repeat_counts() -> None:
    reply = "````markdown path=instruction_addendum.md\nWrite `a`.\n```\nnot a closer inside\n```\n````\n"
    assert parse_reply(reply, [ADDENDUM])["instruction_addendum.md"].startswith("Write `a`.\n```\n")
    twice = "```bash path=solution/steps.sh\nfalse\n```\nOops, fixed:\n```bash path=solution/steps.sh\ntrue\n```"
    assert parse_reply(twice, [STEPS]) == {"solution/steps.sh": "true\n"}


def test_split_blocks_keeps_language_path_and_line() -> None:
    blocks = split_blocks("intro\n```Python path=tests/test_a.py\nx = 1\n```\n~~~\nplain\n~~~\n")
    assert [(b.language, b.path, b.content, b.line) for b in blocks] == [
        ("python", "tests/test_a.py", "x = 1\n", 2),
        ("", None, "plain\n", 5),
    ]
    assert language_of_path("environment/Dockerfile.append") == "dockerfile"
    assert language_of_path("tests/test_a.py") == "python"


@pytest.mark.parametrize(
    "text, expected, kwargs, reason",
    [
        ("I would rather explain it in words.", [STEPS], {}, "no_code_block"),
        ("", [STEPS], {}, "no_code_block"),
        (None, [STEPS], {}, "no_code_block"),
        ("```python path=solution/steps.sh\nprint(1)\n```", [STEPS], {}, "wrong_language"),
        ("```python\nprint(1)\n```", [STEPS], {}, "wrong_language"),
        ("```bash path=tests/test_step_r1.py\ntrue\n```", [TESTS], {}, "wrong_language"),
        ("```bash path=solution/steps.sh\necho half", [STEPS], {}, "truncated"),
        ("```bash path=solution/steps.sh\ntrue\n```", [STEPS], {"finish_reason": "length"}, "truncated"),
        ("```bash path=solution/steps.sh\n\n   \n```", [STEPS], {}, "empty_block"),
        ("```bash path=solution/steps.sh\n```", [STEPS], {}, "empty_block"),
        ("```python path=tests/test_step_r1.py\ndef test_x(:\n    pass\n```", [TESTS], {}, "invalid_python"),
        ("```bash path=solution/steps.sh\nif true; then\n  echo x\n```", [STEPS], {}, "invalid_bash"),
        ("```toml path=task.toml\n[task\nname = 1\n```", [CONFIG], {}, "invalid_toml"),
        (
            "```bash path=solution/steps.sh\ntrue\n```\n```dockerfile path=environment/Dockerfile.append\nFROM x\n```",
            [STEPS, DOCKER],
            {},
            "invalid_dockerfile",
        ),
        ("```bash path=solution/other/place.txt\ntrue\n```", [STEPS], {}, "missing_block"),
        ("```markdown path=notes.md\nhi\n```", [STEPS, DOCKER, ADDENDUM], {}, "missing_block"),
    ],
)
def test_malformed_replies_have_their_reason(
    text: str | None, expected: list[Expect], kwargs: dict[str, object], reason: str
) -> None:
    assert reason_of(text, expected, **kwargs) == reason


def test_optional_only_reply_needs_at_least_one_block() -> None:
    optional = [
        Expect("solution/steps.sh", "bash", required=False),
        Expect("instruction_addendum.md", "markdown", required=False),
    ]
    assert parse_reply("```markdown path=instruction_addendum.md\nhi\n```", optional, require_any=True) == {
        "instruction_addendum.md": "hi\n"
    }
    assert reason_of("```python path=x.py\nx=1\n```", optional, require_any=True) == "wrong_language"
    assert reason_of("```\nplain\n```", optional, require_any=True) == "missing_block"


def test_never_crashes_on_odd_input() -> None:
    for text in ["```", "``` path=\n```", "```=\n```", "\x00```bash\n\x00\n```", '```bash path="unclosed\ntrue\n```']:
        try:
            parse_reply(text, [STEPS])
        except ProposalError:
            pass
