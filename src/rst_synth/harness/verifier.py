"""What Harbor does once the work is done: the tests go to /tests, test.sh runs, and the reward is
read from /logs/verifier/reward.txt, else reward.json. Validation, agent attempts, RL episodes and
the mutation check read rewards through here.

The verifier runs in the container the work was done in, by someone who was root there, so before
the tests run the engine is asked what changed versus the image (tamper.py decides whether the
verifier's toolchain was touched), /logs/verifier is emptied of anything planted and anyone holding
it, test.sh runs under `env -i` without startup files, and the reward is read in the same exec,
between markers of a nonce made here, with a check for a writer racing the tests. A refused reward
comes back as 0 with `Breach.TAMPERED` and a detail naming the path."""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from rst_synth.harness.tamper import (
    Finding,
    clean_env,
    content_finding,
    content_suspects,
    env_command,
    toolchain_finding,
    verifier_folders,
)
from rst_synth.sandbox import Container, ExecResult, FileChange
from rst_synth.sandbox.base import Breach
from rst_synth.task import TaskPaths

_LOGS = TaskPaths.CONTAINER_VERIFIER_LOGS
_TESTS = TaskPaths.CONTAINER_TESTS_DIR
RESET_VERIFIER = f"rm -rf {_TESTS} {_LOGS} && mkdir -p {_LOGS} && chmod 0777 {_LOGS}"
"""Run as root between the steps of a multi-step task (the next step's agent must not see these
tests or this reward); `verify` runs a stricter version of it before every verifier run."""
_REFUSED = "RST-VERIFIER-REFUSED:"
_HOLDERS = f"find /proc/[0-9]*/fd /proc/[0-9]*/cwd -maxdepth 1 \\( -lname {_LOGS} -o -lname '{_LOGS}/*' \\) 2>/dev/null"
"""The /proc links of every process with a file or its cwd under /logs/verifier (find is one process,
where a readlink per descriptor would be hundreds in a container that keeps services running)."""
# Root, before the tests go in: nothing planted in /logs/verifier or /tests may reach the verifier,
# and nobody may keep a handle on them to write a reward later.
_PREPARE = f"""
for d in /logs {_LOGS} {_TESTS}; do [ -L "$d" ] && echo "{_REFUSED}$d is a symbolic link"; done
while read -r _ _ _ _ m _; do
  case "$m" in /logs|/logs/*|{_TESTS}|{_TESTS}/*) echo "{_REFUSED}$m is a mount point";; esac
done < /proc/self/mountinfo
{_HOLDERS} | while IFS=/ read -r _ _ pid _; do [ "$pid" != "$$" ] && kill -9 "$pid" 2>/dev/null; done
if command -v chattr >/dev/null; then chattr -R -i {_LOGS} {_TESTS} 2>/dev/null; fi
rm -rf {_TESTS} {_LOGS} || echo "{_REFUSED}{_LOGS} could not be cleared"
[ -d /logs ] && [ ! -L /logs ] || echo "{_REFUSED}/logs is not a plain directory"
mkdir -p {_LOGS} && chmod 0777 {_LOGS} || echo "{_REFUSED}{_LOGS} could not be made"
true
"""


ALONE = """alone=1
for p in /proc/[0-9]*; do
  case "${p#/proc/}" in 1|$$) continue ;; esac
  read -r state < "$p/stat" 2>/dev/null || continue
  state=${state##*) }
  tasks=("$p"/task/*)
  [ "${state%% *}" = Z ] && [ "${#tasks[@]}" -le 1 ] || alone=
done"""
"""Sets `alone` where no process lives but PID 1 and this shell: zombies aside (the keepalive leaves
one), but not a zombie thread-group leader whose other threads still run."""


def _run_script(nonce: str, test_sh: str) -> str:
    """test.sh, then the reward files as it left them, read twice around a short pause (a writer
    racing the tests changes them or leaves them newer than a stamp made when test.sh ended), between
    lines that start with `nonce`; exits with test.sh's status. The pause is skipped where no process
    but PID 1 (the sandbox's keepalive) and this shell is left once test.sh ended, zombies aside (the
    keepalive leaves one, `ALONE`): a writer is a live process, and from then on only this shell could
    start one."""
    n = nonce
    return f"""{test_sh}
rc=$?
stamp=/tmp/.rst-verifier-{n}
: > "$stamp" 2>/dev/null || stamp=
show() {{
  for f in reward.txt reward.json; do
    p={_LOGS}/$f
    if [ -L "$p" ]; then echo "{n}:odd:$p is a symbolic link"
    elif [ -d "$p" ]; then echo "{n}:odd:$p is a directory"
    elif [ -f "$p" ]; then printf '%s:file:%s\\n%s\\n%s:end\\n' "{n}" "$f" "$(< "$p")" "{n}"
    fi
  done
}}
{ALONE}
first=$(show)
[ -n "$alone" ] || read -rt 0.3 <> <(:) || :
[ "$first" = "$(show)" ] || echo "{n}:odd:{_LOGS} changed after the tests ended"
if [ -n "$stamp" ]; then
  for f in reward.txt reward.json; do
    [ {_LOGS}/$f -nt "$stamp" ] && echo "{n}:odd:{_LOGS}/$f was written after the tests ended"
  done
  rm -f "$stamp"
fi
held=$({_HOLDERS})
[ -n "$held" ] && echo "{n}:odd:a process holds {_LOGS} open after the tests: "$held
printf '%s\\n' "$first"
echo "{n}:rc:$rc"
exit $rc
"""


@dataclass(frozen=True)
class Reading:
    """What the markers of one verifier run said: the reward files' contents, or why not to trust them."""

    files: dict[str, bytes]
    refused: str = ""

    @property
    def reward(self) -> float | None:
        if "reward.txt" in self.files:
            return parse_reward_txt(self.files["reward.txt"])
        if "reward.json" in self.files:
            return parse_reward_json(self.files["reward.json"])
        return None


def read_markers(nonce: str, result: ExecResult) -> tuple[Reading, str]:
    """The reading between `nonce`'s markers, and the output without them. One rc line, equal to the
    exec's exit status, or the run was interfered with (a killed shell, a second block written in)."""
    files: dict[str, bytes] = {}
    odd: list[str] = []
    rcs: list[str] = []
    kept: list[str] = []
    current: str | None = None
    body: list[str] = []
    for line in result.output.splitlines():
        if current is not None:
            if line == f"{nonce}:end":
                files[current] = "\n".join(body).encode()
                current, body = None, []
            else:
                body.append(line)
        elif line.startswith(f"{nonce}:file:"):
            current = line.removeprefix(f"{nonce}:file:")
        elif line.startswith(f"{nonce}:odd:"):
            odd.append(line.removeprefix(f"{nonce}:odd:"))
        elif line.startswith(f"{nonce}:rc:"):
            rcs.append(line.removeprefix(f"{nonce}:rc:"))
        else:
            kept.append(line)
    output = "\n".join(kept) + ("\n" if kept else "")
    if not result.timed_out and result.breach is None:
        if len(rcs) != 1 or rcs[0] != str(result.exit_code):
            odd.append(f"the verifier's shell did not end as it should ({len(rcs)} status lines)")
    return Reading(files, "; ".join(odd)), output


async def toolchain_check(
    box: Container, changes: list[FileChange], test_sh: str, workdir: str, path: str
) -> Finding | None:
    """What the engine says changed versus the image (`changes`), through tamper.py's policy; the few
    files that tamper only by their content (a pyproject.toml that configures pytest) are read."""
    folders = verifier_folders(test_sh, workdir)
    if found := toolchain_finding(changes, folders, path):
        return found
    for path, marker in content_suspects(changes, folders).items():
        raw = await box.read_file(PurePosixPath(path))
        if raw is not None and (found := content_finding(path, marker, raw.decode("utf-8", errors="replace"))):
            return found
    return None


def refused(detail: str, result: ExecResult | None = None) -> ExecResult:
    """A verifier run whose reward the harness refused: `Breach.TAMPERED`, the reason in `detail`."""
    base = result or ExecResult(exit_code=None, output="", duration_sec=0.0)
    note = f"\n[rst-synth: reward refused, the verifier was tampered with: {detail}]\n"
    return replace(base, output=base.output + note, breach=Breach.TAMPERED, detail=detail)


async def verify(
    box: Container, tests: dict[str, bytes], timeout: float, fresh: bool = False
) -> tuple[ExecResult, float | None]:
    """Check the toolchain, clear /logs/verifier, copy the tests in, run test.sh in a clean environment
    and read the reward it wrote (None when it wrote none or ran out of time; 0 with
    `Breach.TAMPERED` when the run cannot be trusted). `fresh`: nothing ran in the container before,
    so there is nothing to check or clear first."""
    test_sh = tests.get("test.sh", b"").decode("utf-8", errors="replace")
    if fresh:
        config = await box.image_config()
    else:
        # Three engine calls at once (a second of every check, one after another): clearing /logs
        # and /tests touches nothing the toolchain policy reads, and a refusal discards the run.
        config, changes, prepared = await asyncio.gather(
            box.image_config(), box.changes(), box.exec(_PREPARE, timeout=60, user="root")
        )
        if found := await toolchain_check(box, changes, test_sh, config.workdir, clean_env(config.env)["PATH"]):
            return refused(found.detail), 0.0
        problems = [line.removeprefix(_REFUSED) for line in prepared.output.splitlines() if line.startswith(_REFUSED)]
        if problems:
            return refused("; ".join(problems)), 0.0
    env = clean_env(config.env)
    await box.put_files(tests, _TESTS)
    nonce = f"rst-{secrets.token_hex(12)}"
    command = env_command(env, f"bash --noprofile --norc {_TESTS}/test.sh")
    result = await box.exec(_run_script(nonce, command), timeout=timeout + 10)
    reading, output = read_markers(nonce, result)
    result = replace(result, output=output)
    if result.timed_out:
        return result, None
    if reading.refused:
        return refused(reading.refused, result), 0.0
    return result, reading.reward


def verdict(result: ExecResult, reward: float | None) -> tuple[str | None, str]:
    """Why a verifier run earned less than 1, as the validator's reason codes name it (None at 1),
    and its detail: for `verifier_tampered`, the path or channel."""
    if result.breach is not None:
        return result.breach.value, result.detail
    if result.timed_out:
        return "verifier_timeout", ""
    if reward is None:
        return "no_reward_file", ""
    return (None, "") if reward >= 1.0 else ("tests_failed", "")


async def read_reward(box: Container) -> float | None:
    txt = await box.read_file(TaskPaths.CONTAINER_REWARD_TXT)
    if txt is not None:
        return parse_reward_txt(txt)
    raw = await box.read_file(TaskPaths.CONTAINER_REWARD_JSON)
    return parse_reward_json(raw) if raw is not None else None


async def read_reward_keys(box: Container, keys: list[str]) -> dict[str, float]:
    """Each of `keys` from reward.json (a flat task's per-step credit); a key it lacks, or no file, is 0."""
    raw = await box.read_file(TaskPaths.CONTAINER_REWARD_JSON)
    try:
        data = json.loads(raw) if raw is not None else {}
    except ValueError:
        data = {}
    found = data if isinstance(data, dict) else {}
    return {key: float(found[key]) if isinstance(found.get(key), (int, float)) else 0.0 for key in keys}


def parse_reward_txt(raw: bytes) -> float:
    try:
        return float(raw.decode("utf-8", errors="replace").strip() or "0")
    except ValueError:
        return 0.0


def parse_reward_json(raw: bytes) -> float:
    """Harbor's flat dict: its `reward` key, else the lowest value (every part must pass)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return 0.0
    if isinstance(data, (int, float)):
        return float(data)
    if not isinstance(data, dict):
        return 0.0
    if isinstance(data.get("reward"), (int, float)):
        return float(data["reward"])
    values = [float(v) for v in data.values() if isinstance(v, (int, float))]
    return min(values) if values else 0.0
