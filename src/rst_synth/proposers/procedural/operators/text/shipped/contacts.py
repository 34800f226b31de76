"""What `text-contact-index` ships: the tool that indexes the email addresses of a corpus with the phones and
dates mentioned alongside (`main` and what it uses; the step writes them into an executable with a
`sys.exit(main(sys.argv))` line), and the tests that index the corpus again and run the tool on corpora they
generate (decoys, repeats, mixed formats) and on unreadable files. The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import csv
import datetime
import pathlib
import random
import re
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, csv_text_rows, run_tool

TOOL = "/app/bin/notes_contacts"
FILES = ["/app/notes/a.txt", "/app/notes/b.txt"]
OUT = "/app/contacts/notes_contacts.csv"
SEED = 1
EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?![A-Za-z0-9-])"
)
PHONE = re.compile(
    r"(?<![0-9+])(?:\+1[ -](?:\([0-9]{3}\) [0-9]{3}-|[0-9]{3}([-. ])[0-9]{3}\1)|1-[0-9]{3}-[0-9]{3}-"
    r"|\([0-9]{3}\) [0-9]{3}-|[0-9]{3}([-.])[0-9]{3}\2)[0-9]{4}(?![0-9])"
)
ISO = re.compile(r"(?<![0-9])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![0-9])")
US = re.compile(r"(?<![0-9/])([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})(?![0-9/])")


def dates_in(line: str) -> list[str]:
    found = []
    for match in ISO.finditer(line):
        found.append((match[1], match[2], match[3]))
    for match in US.finditer(line):
        found.append((match[3], match[1].zfill(2), match[2].zfill(2)))
    valid = []
    for year, month, day in found:
        try:
            valid.append(datetime.date(int(year), int(month), int(day)).isoformat())
        except ValueError:
            pass
    return valid


def phones_in(line: str) -> list[str]:
    return ["+1" + re.sub(r"[^0-9]", "", match[0])[-10:] for match in PHONE.finditer(line)]


def contacts(texts: list[str]) -> list[list[str]]:
    index: dict[str, list[Any]] = {}
    for text in texts:
        for line in text.split("\n"):
            emails = {m.lower() for m in EMAIL.findall(line)}
            if not emails:
                continue
            phones, dates = set(phones_in(line)), dates_in(line)
            for email in emails:
                entry = index.setdefault(email, [0, set(), []])
                entry[0] += 1
                entry[1] |= phones
                entry[2] += dates
    rows = sorted(index.items(), key=lambda item: (-item[1][0], item[0]))
    return [["email", "lines", "phones", "first_date", "last_date"]] + [
        [email, str(n), ";".join(sorted(phones)), min(dates, default=""), max(dates, default="")]
        for email, (n, phones, dates) in rows
    ]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: " + argv[0] + " FILE...", file=sys.stderr)
        return 2
    texts = []
    for name in argv[1:]:
        try:
            with open(name, encoding="utf-8") as f:
                texts.append(f.read())
        except (OSError, UnicodeDecodeError) as exc:
            print("cannot read " + name + ": " + str(exc), file=sys.stderr)
            return 2
    csv.writer(sys.stdout, lineterminator="\n").writerows(contacts(texts))
    return 0


def fresh_corpus(seed: int) -> list[str]:
    rng = random.Random(seed)
    people = ["Ann.Lee@Example.com", "bob+ops@mail.acme.co.uk", "c_d@x-y.io", "dev.team@sub.example.org"]
    phones = ["(415) 555-0134", "212-555-0199", "646.555.0142", "+1 303 555 0111", "+1-720-555-0100", "1-808-555-0123"]
    dates = ["2025-03-07", "3/7/2025", "12/31/2024", "2024-02-29", "2023-02-29", "13/01/2025", "2025-1-5"]
    decoys = [
        "root@localhost",
        "@handle",
        "order 4155550199",
        "v2.10.3",
        "ratio 3/4",
        "x@y.c",
        "mailto:",
        "212 555 0199",
        "10.20.30.40",
    ]
    texts = []
    for _ in range(rng.randint(2, 3)):
        lines = []
        for _ in range(rng.randint(8, 16)):
            parts = rng.sample(people, rng.randint(0, 2)) + rng.sample(phones, rng.randint(0, 2))
            parts += rng.sample(dates, rng.randint(0, 2)) + rng.sample(decoys, rng.randint(0, 2))
            parts = [rng.choice(["<{}>", "({})", "mailto:{}", "{},", "{}.", "{}"]).format(p) for p in parts]
            rng.shuffle(parts)
            lines.append(" ".join(["Note:"] + parts))
        lines.append(f"Also {rng.choice(people)}: 919 555 0177, 1-808.555.0123 on 13/01/2025 or 2025-02-30")
        texts.append("\n".join(lines) + "\n")
    return texts


def test_contacts_of_the_corpus() -> None:
    want = contacts([pathlib.Path(f).read_text(encoding="utf-8") for f in FILES])
    assert len(want) > 2
    assert csv_text_rows(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_tool_on_fresh_corpora(tmp_path: pathlib.Path) -> None:
    for k in range(4):
        texts = fresh_corpus(SEED + k)
        paths = []
        for n, text in enumerate(texts):
            paths.append(tmp_path / f"c{k}_{n}.txt")
            paths[-1].write_text(text, encoding="utf-8")
        done = run_tool(TOOL, *paths)
        assert done.returncode == 0, done.stderr[-500:]
        assert csv_text_rows(done.stdout.decode("utf-8")) == contacts(texts), texts


def test_tool_rejects_unreadable_files(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"a@b.com \xff\n")
    for args in ([], [tmp_path / "missing.txt"], [bad]):
        done = run_tool(TOOL, *args)
        assert_usage_error(done, args)
