"""A policy's reply read as one action, the two ways RL policies write commands."""

from __future__ import annotations

import pytest

from rst_synth.agents.terminal import SUBMIT_COMMAND
from rst_synth.rl import Action, parse_action


@pytest.mark.parametrize(
    "reply, action",
    [
        ("Look first:\n```bash\nls -la /app\n```\n", Action(command="ls -la /app")),
        ("```sh\ncd /app && make\n```", Action(command="cd /app && make")),
        (f"Done.\n```bash\n{SUBMIT_COMMAND}\n```", Action(submit=True)),
        (
            '<tool_call>\n{"name": "bash", "arguments": {"command": "cat a.txt"}}\n</tool_call>',
            Action(command="cat a.txt"),
        ),
        ('<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}</tool_call>', Action(command="pwd")),
        ('I am done. <tool_call>{"name": "submit", "arguments": {}}</tool_call>', Action(submit=True)),
    ],
)
def test_one_command_or_a_submit(reply: str, action: Action) -> None:
    assert parse_action(reply) == action


@pytest.mark.parametrize(
    "reply, says",
    [
        ("I will look around.", "no ```bash block"),
        ("```bash\nls\n```\nthen\n```bash\npwd\n```", "2 ```bash blocks"),
        ("```bash\n   \n```", "empty"),
        ("<tool_call>{not json}</tool_call>", "not JSON"),
        ('<tool_call>{"name": "python", "arguments": {}}</tool_call>', "unknown tool 'python'"),
        ('<tool_call>{"name": "bash", "arguments": {}}</tool_call>', "bash needs"),
        ('<tool_call>{"name": "submit"}</tool_call><tool_call>{"name": "submit"}</tool_call>', "2 tool calls"),
    ],
)
def test_anything_else_is_a_format_error(reply: str, says: str) -> None:
    action = parse_action(reply)
    assert action.command is None and not action.submit and action.error is not None and says in action.error
