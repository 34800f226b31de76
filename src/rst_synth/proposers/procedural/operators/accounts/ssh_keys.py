"""The team's SSH keys for the new host: IT's drop folder of `<username>.pub` files planted as people sent them
(Windows line ends, a comment, a key pasted twice, one key in two people's files, a key whose type does not
match its blob, a cut-off key, a retired key type, a leaver's file, a file for a name the roster lacks), each
active user's valid distinct keys installed as their `authorized_keys`, every finding reported."""

from __future__ import annotations

import base64
import random

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.accounts.roster import group_list, roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import ssh_keys as shipped
from rst_synth.proposers.procedural.operators.kit.families import folders_of
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

SHARED = "/srv/shared"
"""The onboarding workflow's team folders, which the step leaves alone."""


def _string(data: bytes) -> bytes:
    """An SSH wire-format string: a 4-byte big-endian length, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def _blob(kind: str, rng: random.Random) -> str:
    """The base64 of a plausible public key blob of `kind`: ed25519's 32-byte point, or RSA's exponent 65537
    and a 2048-bit odd modulus (an mpint: a zero byte ahead of its high bit); any other kind as ed25519's."""
    if kind == "ssh-rsa":
        modulus = bytearray(rng.randbytes(256))
        modulus[0] |= 0x80
        modulus[-1] |= 1
        body = _string(b"\x01\x00\x01") + _string(b"\x00" + bytes(modulus))
    else:
        body = _string(rng.randbytes(32))
    return base64.b64encode(_string(kind.encode()) + body).decode("ascii")


def _outsider(rows: list[dict[str, str]]) -> str:
    """A name the roster lacks: a team's CI deploy key."""
    names = {r["username"] for r in rows}
    return next((f"{t}-ci" for t in sorted({r["team"] for r in rows}) if f"{t}-ci" not in names), "deploy-ci")


Lines = list[tuple[str, str | None]]
"""A key file's lines, each with what becomes of it: a problem of the report, "" for a key installed, None for a
line that is skipped."""


@register
class AccountsSshKeys(Operator):
    """IT's drop of the team's public SSH keys checked against the roster and installed for the active users."""

    name = "accounts-ssh-keys"
    purpose = Purpose.PREPARE
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one host, one set of authorized_keys files

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        rows, listed = roster_rows(artifact), group_list(artifact, discovery)  # five active rows at least
        # A roster a step planted (HR's next one) names people who have no account or home here yet.
        planted = artifact.path.startswith(f"{work_root(discovery)}/incoming/")
        return (
            rows is not None
            and listed is not None
            and all(r["team"] in listed[1] for r in rows if r["status"] == "active")
            and not planted
            and not inside_git(artifact.path, discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rows, listed = roster_rows(artifact), group_list(artifact, ctx.discovery)
        assert rows is not None and listed is not None  # applies() checked them
        rng = ctx.rng
        active = sorted(r["username"] for r in rows if r["status"] == "active")
        two, dup, bad, old, other = rng.sample(active, 5)
        full = {r["username"]: r["full_name"] for r in rows}
        shared = f"ssh-rsa {_blob('ssh-rsa', rng)} {two}@desktop"
        again = _blob("ssh-ed25519", rng)
        whole = _blob("ssh-ed25519", rng)
        sent: dict[str, tuple[Lines, bool]] = {
            two: (
                [
                    (f"# {full[two]}, sent by IT", None),
                    (f"ssh-ed25519 {_blob('ssh-ed25519', rng)} {two}@laptop", ""),
                    (shared, "shared"),
                ],
                True,  # saved on Windows
            ),
            dup: (
                [
                    (f"ssh-rsa  {_blob('ssh-rsa', rng)}   {dup}@workstation", ""),
                    (f"ssh-ed25519 {again} {dup}@laptop", ""),
                    ("", None),
                    (f"ssh-ed25519 {again} {dup}@phone", "duplicate"),
                ],
                False,
            ),
            bad: (
                [
                    (f"ssh-ed25519 {_blob('ssh-ed25519', rng)} {bad}@laptop", ""),
                    (f"ssh-rsa {whole} {bad}@desktop", "malformed"),  # an ed25519 blob under the RSA type
                    (f"ssh-ed25519 {_blob('ssh-ed25519', rng)[:-3]} {bad}@tablet", "malformed"),  # cut off
                ],
                False,
            ),
            old: (
                [(f"# {full[old]}'s old key", None), (f"ssh-dss {_blob('ssh-dss', rng)} {old}@laptop", "malformed")],
                True,
            ),
            other: ([(f"ssh-ed25519 {_blob('ssh-ed25519', rng)} {other}@laptop", ""), (shared, "shared")], False),
        }
        left = sorted(r["username"] for r in rows if r["status"] == "left")
        gone = [rng.choice(left)] if left else []
        stray = [_outsider(rows)]
        for name in gone + stray:
            sent[name] = ([(f"ssh-ed25519 {_blob('ssh-ed25519', rng)} {name}@laptop", "")], False)
        keys = fresh_path(ctx, planted_dir(ctx), "ssh_keys")
        planted = {
            f"{keys}/{name}.pub": "".join(line + ("\r\n" if crlf else "\n") for line, _ in lines).encode()
            for name, (lines, crlf) in sorted(sent.items())
        }
        installed = {
            name: [" ".join(line.split()) for line, fate in lines if fate == ""]
            for name, (lines, _) in sent.items()
            if name in active and any(fate == "" for _, fate in lines)
        }
        want = [[f"{keys}/{name}.pub", "", "not_active"] for name in gone]
        want += [[f"{keys}/{name}.pub", "", "unknown_user"] for name in stray]
        for name in set(sent) - set(gone) - set(stray):
            lines = sent[name][0]
            want += [[f"{keys}/{name}.pub", str(n), fate] for n, (_, fate) in enumerate(lines, 1) if fate]
        want.sort(key=lambda row: (row[0], int(row[1] or 0)))
        report = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", "ssh_keys.csv")
        groups = listed[0].path
        params = {"ROSTER": artifact.path, "GROUPS": groups, "KEYS": keys, "REPORT": report}
        code = render(shipped, ["install_keys"], **params)
        solution = f"{folders_of(report)}\n{python_script(code, 'install_keys()')}"
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(shipped, checks, tag=ctx.tag, PLANTED=planted, INSTALLED=installed, WANT=want, **params)
        dockerfile = "".join(plant(path, content) for path, content in planted.items())
        files = ", ".join(f"`{p}`" for p in planted)
        types = ", ".join(f"`{t}`" for t in shipped.TYPES)
        instruction = (
            f"IT sent the team's public SSH keys for this host as they got them, one file per name in `{keys}` "
            f"({files}); leave that folder as it is. In these files, a line (lines numbered from 1; a Windows "
            "line end `\\r\\n` is one line end) that is empty, only whitespace or starts with `#` after leading "
            "whitespace is skipped; every other line is a key when its whitespace-separated fields are a key "
            f"type among {types}, then a blob in standard base64 (padding included) that decodes to bytes "
            "starting with the key type as an SSH string (a 4-byte big-endian length, then the type's name), "
            "then an optional comment (the remaining fields), and is `malformed` otherwise. Two keys are the "
            "same key when their types and blobs are equal. Only the keys of files named after the username of "
            f"an `active` row of `{artifact.path}` count: a key in the files of two or more of them is `shared` "
            "on every line it is on and installed for nobody; otherwise a key on a later line of the same file "
            "than its first is a `duplicate`. Give every active user left with at least one key the file "
            "`/home/<username>/.ssh/authorized_keys` holding those keys, one per line (`\\n` line ends) in the "
            "order of the lines they first occur on, each as its type, blob and comment (when it has one) "
            "separated by single spaces; the `.ssh` folder has mode `0700` and the file `0600`, both owned by "
            f"the user's `uid` in the roster and the GID of the user's `team` in `{groups}`. Write no other "
            "`authorized_keys` file: none for an active user without a key, none for a file named after a "
            "`left` row's username or after a name no roster row has; change no account, no home's ownership "
            f"and nothing below `{SHARED}`. Write the report `{report}`: a CSV file with the header "
            f"`{','.join(shipped.HEADER)}` and one row per finding, `file` the key file's absolute path: a file "
            "named after a `left` row's username gets one row with an empty `line` and `not_active`, a file "
            "named after a name no roster row has one with an empty `line` and `unknown_user`, and in an active "
            "user's file each line that is neither skipped nor installed one with its line number and "
            "`malformed`, `shared` or `duplicate`. Rows sorted by file in code-point order, then by line number."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            # The installed files are end results too: a later step writing beside one would break the policy.
            produces=[
                csv_output(report, shipped.HEADER, [], end_result=True),
                *(
                    Artifact(path=f"{shipped.HOME}/{name}/.ssh/authorized_keys", kind=Kind.TEXT, end_result=True)
                    for name in sorted(installed)
                ),
            ],
        )
