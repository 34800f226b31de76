"""A contact index over a folder of free text (support notes, mail exports): for each email address, how
many lines mention it, the phone numbers and the date range mentioned with it, under stated extraction
rules. The tool is tested on corpora the tests generate (decoys, repeats, mixed formats); its table
(one row per address) is data later steps build on."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    RUN_TOOL,
    fresh_path,
    inside_git,
    work_root,
)

HEADER = ["email", "lines", "phones", "first_date", "last_date"]
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")

CONTACTS_PY = r"""
EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?![A-Za-z0-9-])"
)
PHONE = re.compile(
    r"(?<![0-9+])(?:\+1[ -](?:\([0-9]{3}\) [0-9]{3}-|[0-9]{3}([-. ])[0-9]{3}\1)|1-[0-9]{3}-[0-9]{3}-"
    r"|\([0-9]{3}\) [0-9]{3}-|[0-9]{3}([-.])[0-9]{3}\2)[0-9]{4}(?![0-9])"
)
ISO = re.compile(r"(?<![0-9])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![0-9])")
US = re.compile(r"(?<![0-9/])([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})(?![0-9/])")


def dates_in(line):
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


def phones_in(line):
    return ["+1" + re.sub(r"[^0-9]", "", match[0])[-10:] for match in PHONE.finditer(line)]


def contacts(texts):
    index = {}
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
        for email, (n, phones, dates) in rows]
"""

TOOL_MAIN = r"""
def main(argv):
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


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
def fresh_corpus(seed):
    rng = random.Random(seed)
    people = ["Ann.Lee@Example.com", "bob+ops@mail.acme.co.uk", "c_d@x-y.io", "dev.team@sub.example.org"]
    phones = ["(415) 555-0134", "212-555-0199", "646.555.0142", "+1 303 555 0111", "+1-720-555-0100",
              "1-808-555-0123"]
    dates = ["2025-03-07", "3/7/2025", "12/31/2024", "2024-02-29", "2023-02-29", "13/01/2025", "2025-1-5"]
    decoys = ["root@localhost", "@handle", "order 4155550199", "v2.10.3", "ratio 3/4", "x@y.c", "mailto:",
              "212 555 0199", "10.20.30.40"]
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
"""


def mentions_emails(artifact: Artifact, least: int = 3) -> bool:
    return len({m.group(0).lower() for m in _EMAIL.finditer(artifact.sample)}) >= least


def _corpus(artifact: Artifact, discovery: Discovery) -> list[str]:
    """The text files of the artifact's folder that mention email addresses (the corpus), by name."""
    return sorted(
        a.path
        for a in discovery.artifacts
        if a.kind is Kind.TEXT and a.directory == artifact.directory and mentions_emails(a, 1)
    )


@register
class TextContactIndex(Operator):
    """Email addresses of a text corpus with the lines, phones and dates mentioned alongside, as a tool."""

    name = "text-contact-index"
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0
    once = True  # the tool is the same program whatever the folder: a second step would copy it

    def input_of(self, artifact: Artifact) -> str:
        return artifact.directory  # one index per corpus folder

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            mentions_emails(artifact)
            and not inside_git(artifact.path, discovery)
            and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "contacts"))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        files = _corpus(artifact, ctx.discovery) or [artifact.path]
        name = artifact.directory.rstrip("/").rsplit("/", 1)[-1] or "corpus"
        tool = fresh_path(ctx, f"{work_root(ctx.discovery)}/bin", f"{re.sub(r'[^A-Za-z0-9_]+', '_', name)}_contacts")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/contacts", f"{name}_contacts.csv")
        seed = ctx.rng.randrange(10**6)
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import csv, datetime, re, sys
{CONTACTS_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {" ".join(q(f) for f in files)} > {q(out)}"""
        tests = f"""
TOOL, FILES, OUT, SEED = {tool!r}, {files!r}, {out!r}, {seed}
{CONTACTS_PY}{FRESH_PY}{RUN_TOOL}

def read_csv(text):
    return list(csv.reader(io.StringIO(text, newline="")))


def test_{ctx.tag}_contacts_of_the_corpus():
    want = contacts([pathlib.Path(f).read_text(encoding="utf-8") for f in FILES])
    assert len(want) > 2
    assert read_csv(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_{ctx.tag}_tool_on_fresh_corpora(tmp_path):
    for k in range(4):
        texts = fresh_corpus(SEED + k)
        paths = []
        for n, text in enumerate(texts):
            paths.append(tmp_path / f"c{{k}}_{{n}}.txt")
            paths[-1].write_text(text, encoding="utf-8")
        done = run_tool(TOOL, *paths)
        assert done.returncode == 0, done.stderr[-500:]
        assert read_csv(done.stdout.decode("utf-8")) == contacts(texts), texts


def test_{ctx.tag}_tool_rejects_unreadable_files(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"a@b.com \\xff\\n")
    for args in ([], [tmp_path / "missing.txt"], [bad]):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), args
"""
        listing = ", ".join(f"`{f}`" for f in files)
        instruction = " ".join(
            f"""Next, index the contacts mentioned in the notes {listing}. Write a command-line tool `{tool}` (an
            executable file with a `#!` line): `{tool} FILE...` reads the UTF-8 files in order, line by line. An
            email address is a local part (letters, digits, `.`, `_`, `%`, `+`, `-`), `@`, and a domain of
            dot-separated labels (letters, digits, `-`) whose last label is two or more letters, not preceded by a
            local-part character and not followed by a letter, digit or `-`; addresses are compared in lower case.
            A phone number is `(AAA) BBB-CCCC`, `AAA-BBB-CCCC` or `AAA.BBB.CCCC` (both separators alike); after
            `+1 ` or `+1-` any of these or `AAA BBB CCCC`; or `1-AAA-BBB-CCCC`; it is not preceded by a digit or
            `+` and not followed by a digit, and is written `+1AAABBBCCCC` (a bare `AAA BBB CCCC` is no phone
            number). A date is `YYYY-MM-DD` or `M/D/YYYY` (one or two
            digits for month and day; not touching another digit or `/`) that is a real calendar date, written
            `YYYY-MM-DD`. For each address, over all lines that mention it (a line counts once however often it
            mentions it), the tool counts those lines and collects the phone numbers and dates on them. It prints
            CSV with the header `email,lines,phones,first_date,last_date` and one row per address: the count, the
            distinct phone numbers sorted and joined by `;` (empty when none), and the earliest and latest date
            (empty when none); rows are ordered by the count (largest first), then by address (code-point order);
            lines end with `\\n`. It exits 0, or when no FILE is given or one cannot be read as UTF-8 it prints an
            error to standard error, nothing to standard output, and exits 2. Then run it on those notes in that
            order and save its output as `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[csv_output(out, HEADER, ["lines"]), Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
