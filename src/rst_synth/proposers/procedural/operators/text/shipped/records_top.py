"""What `text-records-tool` ships: the top-N tool over whitespace-separated records (`main` and what it uses; the
step writes them into an executable with a `sys.exit(main(sys.argv))` line), and the tests that rank the artifact
again and run the tool on inputs they generate (comments, CRLF, malformed lines, non-ASCII keys) and on edge
cases. The constants are the step's parameters: `shipping.render` sets them (KEY and VALUE: 1-based fields)."""

from __future__ import annotations

import decimal
import pathlib
import random
import re
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/records_top"
SRC = "/app/data/records.txt"
OUT = "/app/data/records_top5.tsv"
KEY = 1
VALUE = 3
TOP = 5
SEED = 1
NUMBER = re.compile(r"-?\d+(\.\d+)?")


def top(text: str, n: int, key: int, value: int) -> tuple[str, list[int]]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    sums, malformed = {}, []  # type: ignore[var-annotated]
    for number, line in enumerate(lines, 1):
        fields = [f for f in re.split(r"[ \t]+", line.removesuffix("\r")) if f]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < max(key, value) or not NUMBER.fullmatch(fields[value - 1]):
            malformed.append(number)
            continue
        name = fields[key - 1]
        sums[name] = sums.get(name, decimal.Decimal(0)) + decimal.Decimal(fields[value - 1])
    out = ["key\tsum\n"]
    for name in sorted(sums, key=lambda k: (-sums[k], k))[:n]:
        total = sums[name].quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
        out.append(f"{name}\t{abs(total) if total == 0 else total}\n")
    return "".join(out), malformed


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or not re.fullmatch(r"[0-9]+", argv[1]) or int(argv[1]) < 1:
        print("usage: N [FILE] with N a positive integer", file=sys.stderr)
        return 2
    data = open(argv[2], "rb").read() if len(argv) == 3 else sys.stdin.buffer.read()
    text, malformed = top(data.decode("utf-8"), int(argv[1]), KEY, VALUE)
    for number in malformed:
        print(f"line {number}: malformed", file=sys.stderr)
    sys.stdout.buffer.write(text.encode("utf-8"))
    return 0


def fresh(seed: int) -> str:
    rng = random.Random(seed)
    keys = ["Zürich", "東京", "alpha", "beta", "ünï-ß", "x.y"]
    width = max(KEY, VALUE) + rng.randint(0, 2)
    lines = ["# a comment", "", "   "]
    for i in range(40):  # noqa: B007
        fields = [f"w{rng.randint(0, 9)}" for _ in range(width)]
        fields[KEY - 1] = rng.choice(keys)
        fields[VALUE - 1] = rng.choice([str(rng.randint(-50, 500)), f"{rng.randint(-9999, 99999) / 100:.2f}"])
        lines.append(rng.choice([" ", "\t", "  \t "]).join(fields))
    lines.insert(7, "too-short")
    bad = [f"w{i}" for i in range(width)]
    bad[VALUE - 1] = "12,5"
    lines.insert(11, " ".join(bad))
    lines.insert(15, "\t# indented comment")
    return "\r\n".join(lines) + "\r\n"


def reported(stderr: bytes) -> list[int]:
    return sorted(int(n) for n in re.findall(r"^line (\d+): malformed$", stderr.decode("utf-8"), re.MULTILINE))


def test_top_of_the_artifact() -> None:
    want, _ = top(pathlib.Path(SRC).read_bytes().decode("utf-8"), TOP, KEY, VALUE)
    assert pathlib.Path(OUT).read_bytes().decode("utf-8") == want


def test_tool_on_fresh_inputs(tmp_path: pathlib.Path) -> None:
    for seed, n in ((SEED, 3), (7, 100)):
        text = fresh(seed)
        want, malformed = top(text, n, KEY, VALUE)
        assert malformed
        path = tmp_path / "records.txt"
        path.write_bytes(text.encode("utf-8"))
        for done in (run_tool(TOOL, n, path), run_tool(TOOL, n, stdin=text.encode("utf-8"))):
            assert done.returncode == 0, done.stderr[-300:]
            assert done.stdout.decode("utf-8") == want
            assert reported(done.stderr) == malformed


def test_tool_edge_cases(tmp_path: pathlib.Path) -> None:
    done = run_tool(TOOL, 2, stdin=b"")
    assert (done.returncode, done.stdout) == (0, b"key\tsum\n")
    for bad in ("0", "-1", "x"):
        done = run_tool(TOOL, bad, stdin=b"a 1\n")
        assert_usage_error(done, bad)
