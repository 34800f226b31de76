"""Distinctive terms of a folder of prose: the top terms of each file by TF-IDF under stated tokenising and
weighting rules, as a tool tested on corpora the tests write (shared words, ties, apostrophes, an empty
file). Its table (one row per file and term, with counts) is data later steps build on."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.text import is_prose
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, work_root
from rst_synth.proposers.procedural.operators.logs.access_log_sessions import looks_like_access_log
from rst_synth.proposers.procedural.operators.schedule.crontab import schedule_entries
from rst_synth.proposers.procedural.operators.text.shipped import tfidf
from rst_synth.proposers.procedural.shipping import render

HEADER = ["file", "rank", "term", "count", "tfidf"]
_WORD = re.compile(r"[A-Za-z']+")


def _prose(artifact: Artifact) -> bool:
    """Sentences, not a schedule, a log or a listing: at least 30 words, letters most of the text, few comment
    lines, and most lines holding five words or more."""
    words = _WORD.findall(artifact.sample)
    lines = [line for line in artifact.sample.splitlines() if line.strip()]
    return (
        artifact.kind is Kind.TEXT
        and is_prose(artifact)
        and len(words) >= 30
        and sum(map(len, words)) >= 0.5 * len(artifact.sample)
        and sum(line.lstrip().startswith("#") for line in lines) <= 0.2 * len(lines)
        and sum(len(_WORD.findall(line)) >= 5 for line in lines) >= 0.6 * len(lines)
        and not looks_like_access_log(artifact)
        and not schedule_entries(artifact)
    )


def _folder(artifact: Artifact, discovery: Discovery) -> list[str]:
    return sorted(a.path for a in discovery.artifacts if a.directory == artifact.directory and _prose(a))


def _distinct(artifact: Artifact, discovery: Discovery) -> bool:
    """Whether every file of the folder has terms the others lack (their samples are whole): notes drawn from
    one small vocabulary score 0 everywhere, and their table would be empty."""
    found = [a for a in discovery.artifacts if a.path in set(_folder(artifact, discovery))]
    if any(len(a.sample.encode("utf-8")) != a.size for a in found):
        return False
    vocabularies = [{w.lower().strip("'") for w in _WORD.findall(a.sample)} - {""} for a in found]
    return all(words - set.intersection(*vocabularies) for words in vocabularies)


@register
class TextTfidfTerms(ToolOperator):
    """The most distinctive terms of each file of a folder of prose by TF-IDF, as a tool."""

    name = "text-tfidf-terms"
    kinds = (Kind.TEXT,)
    once = True  # the tool is the same program whatever the folder: a second step would copy it

    def input_of(self, artifact: Artifact) -> str:
        return artifact.directory  # one index per folder

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            _prose(artifact)
            and not inside_git(artifact.path, discovery)
            and len(_folder(artifact, discovery)) >= 2
            and _distinct(artifact, discovery)
            and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "terms"))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        files = _folder(artifact, ctx.discovery)
        name = re.sub(r"[^A-Za-z0-9_]+", "_", artifact.directory.rstrip("/").rsplit("/", 1)[-1]) or "texts"
        tool = fresh_path(ctx, f"{work_root(ctx.discovery)}/bin", f"{name}_tfidf")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/terms", f"{name}_tfidf.csv")
        top = ctx.rng.choice([5, 8, 10])
        seed = ctx.rng.randrange(10**6)
        code = render(tfidf, ["main"])
        run = f"""{q(tool)} {top} {" ".join(q(f) for f in files)} > {q(out)}"""
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, out)
        params = {"TOOL": tool, "FILES": files, "OUT": out, "TOP": top, "SEED": seed}
        names = ["test_terms_of_the_folder", "test_tool_on_fresh_texts", "test_tool_rejects_bad_arguments"]
        tests = render(tfidf, names, tag=ctx.tag, **params)
        listing = ", ".join(f"`{f}`" for f in files)
        instruction = " ".join(
            f"""Find the distinctive terms of the texts {listing}. Write a command-line tool `{tool}` (an
            executable file with a `#!` line): `{tool} TOP FILE FILE...` (TOP a whole number >= 1, two files or
            more) reads the UTF-8 files. A file's terms are the runs of letters `a`-`z` and apostrophes in its
            lower-cased text, with apostrophes at either end removed and empty runs dropped (so `Don't` is
            `don't`, `'quoted'` is `quoted`, and `ü` splits a word). For each term of a file, TF is its number of
            occurrences in the file divided by the file's number of terms, IDF is the natural logarithm of the
            number of files divided by the number of files containing the term, and its score is TF times IDF;
            terms with score 0 are left out. The tool prints CSV with the header `file,rank,term,count,tfidf`
            and, for each file in argument order, its TOP best terms (highest score first, equal scores by term
            in code-point order) ranked from 1: the file's base name, the rank, the term, its count and the score
            with exactly 6 decimals; lines end with `\\n`. It exits 0, or with wrong arguments (a bad TOP, fewer
            than two files, an unreadable file) prints a line to standard error, nothing to standard output and
            exits 2. Then run it with TOP {top} on those files in that order and save its output as `{out}`
            (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[csv_output(out, HEADER, ["rank", "count", "tfidf"]), Artifact(path=tool, kind=Kind.EXECUTABLE)],
        )
