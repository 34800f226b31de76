"""What `text-tfidf-terms` ships: the tool that prints each file's top terms by TF-IDF (`main` and what it uses;
the step writes them into an executable with a `sys.exit(main(sys.argv))` line), and the tests that score the
folder again and run the tool on corpora they write (shared words, ties, apostrophes, an empty file) and on bad
arguments. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import collections
import csv
import io
import math
import os
import pathlib
import random
import re
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/notes_tfidf"
FILES = ["/app/notes/a.txt", "/app/notes/b.txt"]
OUT = "/app/terms/notes_tfidf.csv"
TOP = 5
SEED = 1
WORD = re.compile(r"[a-z']+")


def terms(text: str) -> list[str]:
    return [w.strip("'") for w in WORD.findall(text.lower()) if w.strip("'")]


def top_terms(texts: list[tuple[str, str]], top: int) -> list[list[str]]:
    """texts: [(name, text)] -> rows [name, rank, term, count, tfidf]."""
    counted = [(name, collections.Counter(terms(text))) for name, text in texts]
    df = collections.Counter(term for _, counts in counted for term in counts)
    rows = [["file", "rank", "term", "count", "tfidf"]]
    for name, counts in counted:
        total = sum(counts.values())
        scored = [(count / total * math.log(len(counted) / df[term]), term, count) for term, count in counts.items()]
        scored = [s for s in scored if s[0] > 0]
        scored.sort(key=lambda s: (-round(s[0], 9), s[1]))
        for rank, (score, term, count) in enumerate(scored[:top], 1):
            rows.append([name, str(rank), term, str(count), f"{score:.6f}"])
    return rows


def main(argv: list[str]) -> int:
    try:
        top, *files = argv[1:]
        if not re.fullmatch(r"[0-9]+", top) or int(top) < 1 or len(files) < 2:
            raise ValueError("TOP must be a whole number >= 1, with two FILEs or more")
        texts = []
        for name in files:
            with open(name, encoding="utf-8") as f:
                texts.append((os.path.basename(name), f.read()))
    except (ValueError, OSError) as exc:
        print("usage: " + argv[0] + " TOP FILE FILE... (" + str(exc) + ")", file=sys.stderr)
        return 2
    csv.writer(sys.stdout, lineterminator="\n").writerows(top_terms(texts, int(top)))
    return 0


def fresh_texts(seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocabulary = ["alpha", "beta", "gamma", "delta", "don't", "'quoted'", "Rock'n'roll", "ÜBER", "naïve", "x"]
    texts = []
    for n in range(rng.randint(2, 5)):
        words = [rng.choice(vocabulary[: rng.randint(3, 10)]) for _ in range(rng.randint(0, 60))]
        words += ["common"] * rng.randint(1, 3) + [f"only{n}"] * rng.randint(1, 4)
        rng.shuffle(words)
        texts.append((f"note-{n}.txt", " ".join(words) + rng.choice(["\n", "! 42 -- ''\n", ""])))
    if rng.random() < 0.4:
        texts.append(("empty.txt", ""))
    return texts


def read_rows(text: str) -> tuple[list[str], list[tuple[str, int, str, int, float]]]:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return rows[0], [(r[0], int(r[1]), r[2], int(r[3]), float(r[4])) for r in rows[1:]]


def same(got: str, want: list[list[str]]) -> None:
    header, rows = read_rows(got)
    want_header, want_rows = read_rows("".join(",".join(r) + "\n" for r in want))
    assert header == want_header and len(rows) == len(want_rows)
    for a, b in zip(rows, want_rows):  # noqa: B905  (the lengths are asserted equal above)
        assert a[:4] == b[:4] and abs(a[4] - b[4]) <= 1e-6, (a, b)


def test_terms_of_the_folder() -> None:
    want = top_terms([(os.path.basename(f), pathlib.Path(f).read_text(encoding="utf-8")) for f in FILES], TOP)
    assert len(want) > len(FILES)
    same(pathlib.Path(OUT).read_text(encoding="utf-8"), want)


def test_tool_on_fresh_texts(tmp_path: pathlib.Path) -> None:
    for k in range(5):
        texts = fresh_texts(SEED + k)
        paths = []
        for name, text in texts:
            paths.append(tmp_path / f"{k}" / name)
            paths[-1].parent.mkdir(exist_ok=True)
            paths[-1].write_text(text, encoding="utf-8")
        top = (1, 3, 10, 2, 50)[k]
        done = run_tool(TOOL, top, *paths)
        assert done.returncode == 0, done.stderr[-500:]
        same(done.stdout.decode("utf-8"), top_terms(texts, top))


def test_tool_rejects_bad_arguments(tmp_path: pathlib.Path) -> None:
    one = tmp_path / "a.txt"
    one.write_text("alpha beta", encoding="utf-8")
    for args in ([0, one, one], ["x", one, one], [3, one], [3, one, tmp_path / "missing.txt"]):
        done = run_tool(TOOL, *args)
        assert_usage_error(done, args)
