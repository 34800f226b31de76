"""The reply parser: good replies become files, every malformed kind its own reason."""

from __future__ import annotations

import pytest

from rst_synth.proposers import ProposalError
from rst_synth.proposers.llm.parse import (
    Expect,
    ReplyError,
    language_of_path,
    parse_reply,
    split_blocks,
    unimported_module,
)

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


# --- nearly right replies (recover.py) ------------------------------------------------------------

WORK = "mkdir -p /app/report\necho HELLO > /app/report/upper.txt\n"
MODULE = 'from pathlib import Path\n\n\ndef test_x():\n    assert Path("/app/x").exists()\n'
STEPS_WORK = Expect("solution/steps.sh", "bash", accept=("solution/*.sh",), new_work=True)
TESTS_WORK = Expect("tests/test_step_r1.py", "python", accept=("tests/test_*.py", "test_*.py"), new_work=True)


@pytest.mark.parametrize(
    "first_line",
    [
        "path=solution/steps.sh",
        "path='solution/steps.sh'",
        "# solution/steps.sh",
        "# File: solution/steps.sh",
        "// solution/steps.sh",
        "solution/steps.sh",
        "FILE=./solution/steps.sh",
    ],
)
def test_a_first_line_naming_the_blocks_path_becomes_its_path(first_line: str) -> None:
    assert parse_reply(f"```bash\n{first_line}\n{WORK}```", [STEPS_WORK]) == {"solution/steps.sh": WORK}
    # The fence may name the same path; the line goes all the same.
    assert parse_reply(f"```bash path=solution/steps.sh\n{first_line}\n{WORK}```", [STEPS_WORK]) == {
        "solution/steps.sh": WORK
    }


def test_the_path_line_of_a_test_module_and_of_an_unlabelled_fence() -> None:
    for first in (
        "path=tests/test_step_r1.py",
        "# tests/test_step_r1.py",
        "#!/usr/bin/env python3\n# tests/test_step_r1.py",
    ):
        assert parse_reply(f"```python\n{first}\n{MODULE}```", [TESTS_WORK]) == {"tests/test_step_r1.py": MODULE}
    # No language on the fence: the path's own suffix gives it.
    assert parse_reply(f"```\n# tests/test_step_r1.py\n{MODULE}```", [TESTS_WORK]) == {"tests/test_step_r1.py": MODULE}
    markdown = "```\n<!-- instruction_addendum.md -->\nThen write it.\n```"
    assert parse_reply(markdown, [ADDENDUM]) == {"instruction_addendum.md": "Then write it.\n"}


@pytest.mark.parametrize(
    "content",
    [
        "/app/run.sh\n" + WORK,  # a command, not a path of the reply
        "# environment/Dockerfile.append\n" + WORK,  # a path the stage did not ask for
        "# tests/test_step_r1.py\n" + WORK,  # another expected file's path: left to the fence
    ],
)
def test_a_first_line_that_names_no_path_asked_for_stays(content: str) -> None:
    assert parse_reply(f"```bash path=solution/steps.sh\n{content}```", [STEPS_WORK]) == {"solution/steps.sh": content}


@pytest.mark.parametrize(
    "wrapped",
    [
        f'path=solution/steps.sh\ncat <<EOF >> "$path"\n{WORK}EOF\n',
        f"path=solution/steps.sh\ncat > ${{path}} <<'EOF'\n{WORK}EOF\n\n",
        f"cat > solution/steps.sh <<'EOF'\n{WORK}EOF\n",
        f'file=solution/steps.sh\ncat <<-END > "$file"\n{WORK}\tEND\n',
    ],
)
def test_a_block_that_writes_its_file_with_a_heredoc_becomes_the_heredocs_body(wrapped: str) -> None:
    assert parse_reply(f"```bash\n{wrapped}```", [STEPS_WORK]) == {"solution/steps.sh": WORK}


def test_a_heredoc_followed_by_more_work_is_a_real_script() -> None:
    script = f"cat > /app/notes.txt <<'EOF'\nhi\nEOF\n{WORK}"
    assert parse_reply(f"```bash path=solution/steps.sh\n{script}```", [STEPS_WORK]) == {"solution/steps.sh": script}
    more = f'path=solution/steps.sh\ncat <<EOF >> "$path"\n{WORK}EOF\nchmod +x "$path"\n'
    assert parse_reply(f"```bash\n{more}```", [STEPS_WORK])["solution/steps.sh"].startswith('cat <<EOF >> "$path"')


def test_an_unfenced_reply_is_the_one_markdown_file_chatter_trimmed(caplog: pytest.LogCaptureFixture) -> None:
    text = "Then, from `/app/out.txt`, write `/app/report/upper.txt`.\n\nIts content is one line.\n"
    caplog.set_level("INFO")
    for before, after in [
        ("", ""),
        ("Here is the text to append:\n\n", "\n\nLet me know if you need any changes!"),
        ("Sure! Below is the addendum.\n\n", "\n\nI hope this helps."),
    ]:
        assert parse_reply(before + text + after, [ADDENDUM]) == {"instruction_addendum.md": text}
    assert "no fenced block: took the whole reply" in caplog.text
    # Not where a code file or several files are expected.
    assert reason_of(text, [STEPS]) == "no_code_block"
    assert reason_of(text, [ADDENDUM, DOCKER]) == "no_code_block"
    assert reason_of("Here is the text to append:\n", [ADDENDUM]) == "no_code_block"
    assert reason_of("I am sorry, I cannot help with that.", [ADDENDUM]) == "no_code_block"


@pytest.mark.parametrize(
    "text, expected, reason",
    [
        (
            "```bash path=solution/steps.sh\nset -euo pipefail\n# 1. Build on it.\n:\n```",
            [STEPS_WORK],
            "no_new_command",
        ),
        ("```python path=tests/test_step_r1.py\ndef test_x():\n    print(1)\n```", [TESTS_WORK], "no_assertion"),
        (
            "```python path=tests/test_step_r1.py\ndef test_x():\n    assert re.match('a', 'a')\n```",
            [TESTS_WORK],
            "invalid_python",
        ),
    ],
)
def test_files_that_must_do_work(text: str, expected: list[Expect], reason: str) -> None:
    assert reason_of(text, expected) == reason
    lenient = [Expect(e.path, e.language, accept=e.accept) for e in expected]
    if reason != "invalid_python":  # only files that must do new work are judged for it
        assert parse_reply(text, lenient)


def test_unimported_modules() -> None:
    assert unimported_module("import os\n\ndef f():\n    return os.path, re.sub\n") == ("re", 4)
    for fine in [
        "import re\nre.sub",
        "import os.path\nos.path.join",
        "from json import *\nre.sub",
        "def f(re):\n    return re.sub",
        "re = object()\nre.sub",
        "class T:\n    def f(self):\n        return self.x",
        "import collections.abc as abc\nabc.Mapping",
    ]:
        assert unimported_module(fine) is None, fine


def test_errors_quote_the_exact_error() -> None:
    with pytest.raises(ReplyError) as caught:
        parse_reply("```python path=tests/test_step_r1.py\nx = [1,\n  2\n```", [TESTS])
    assert caught.value.path == "tests/test_step_r1.py" and caught.value.detail.endswith("(line 1)")
    assert caught.value.quote.splitlines() == [
        '  File "tests/test_step_r1.py", line 1',
        "    x = [1,",
        "        ^",
        "SyntaxError: '[' was never closed",
    ]
    with pytest.raises(ReplyError) as caught:
        parse_reply("```bash path=solution/steps.sh\necho a\necho (\necho b\n```", [STEPS])
    assert caught.value.detail == "solution/steps.sh: line 2: syntax error near unexpected token `newline'"
    assert caught.value.quote.splitlines()[-1] == ">    2 | echo ("
    with pytest.raises(ReplyError) as caught:
        parse_reply("no blocks here", [STEPS, DOCKER])
    assert caught.value.path == "solution/steps.sh" and caught.value.reason == "no_code_block"
