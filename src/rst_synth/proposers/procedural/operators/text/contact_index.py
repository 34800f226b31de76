"""A contact index over a folder of free text (support notes, mail exports): for each email address, how
many lines mention it, the phone numbers and the date range mentioned with it, under stated extraction
rules. The tool is tested on corpora the tests generate (decoys, repeats, mixed formats); its table
(one row per address) is data later steps build on."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.text import is_prose
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, work_root
from rst_synth.proposers.procedural.operators.text.shipped import contacts
from rst_synth.proposers.procedural.shipping import render

HEADER = ["email", "lines", "phones", "first_date", "last_date"]
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


def mentions_emails(artifact: Artifact, least: int = 3) -> bool:
    return len({m.group(0).lower() for m in _EMAIL.finditer(artifact.sample)}) >= least


def _corpus(artifact: Artifact, discovery: Discovery) -> list[str]:
    """The text files of the artifact's folder that mention email addresses (the corpus), by name."""
    return sorted(
        a.path
        for a in discovery.artifacts
        if a.kind is Kind.TEXT and a.directory == artifact.directory and mentions_emails(a, 1) and is_prose(a)
    )


@register
class TextContactIndex(ToolOperator):
    """Email addresses of a text corpus with the lines, phones and dates mentioned alongside, as a tool."""

    name = "text-contact-index"
    kinds = (Kind.TEXT,)
    once = True  # the tool is the same program whatever the folder: a second step would copy it

    def input_of(self, artifact: Artifact) -> str:
        return artifact.directory  # one index per corpus folder

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            mentions_emails(artifact)
            and is_prose(artifact)
            and not inside_git(artifact.path, discovery)
            and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "contacts"))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        files = _corpus(artifact, ctx.discovery) or [artifact.path]
        name = artifact.directory.rstrip("/").rsplit("/", 1)[-1] or "corpus"
        tool = fresh_path(ctx, f"{work_root(ctx.discovery)}/bin", f"{re.sub(r'[^A-Za-z0-9_]+', '_', name)}_contacts")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/contacts", f"{name}_contacts.csv")
        seed = ctx.rng.randrange(10**6)
        code = render(contacts, ["main"])
        run = f"""{q(tool)} {" ".join(q(f) for f in files)} > {q(out)}"""
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, out)
        params = {"TOOL": tool, "FILES": files, "OUT": out, "SEED": seed}
        names = ["test_contacts_of_the_corpus", "test_tool_on_fresh_corpora", "test_tool_rejects_unreadable_files"]
        tests = render(contacts, names, tag=ctx.tag, **params)
        listing = ", ".join(f"`{f}`" for f in files)
        instruction = " ".join(
            f"""Index the contacts mentioned in the notes {listing}. Write a command-line tool `{tool}` (an
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
            produces=[csv_output(out, HEADER, ["lines"]), self.executable(tool)],
        )
