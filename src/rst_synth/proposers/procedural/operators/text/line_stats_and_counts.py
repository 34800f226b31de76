"""Operators on line-oriented text: line statistics, pattern counts, unique counts (what they share with the
JSON and config operators is in kit/text.py)."""

from __future__ import annotations

import json
import re

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.text import (
    MAX_TEXT_BYTES,
    complete_sample,
    data_artifact,
    split_lines,
    text_artifact,
)
from rst_synth.proposers.procedural.operators.text.shipped import line_counts, line_stats
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

LINE_DEF = (
    "lines are the pieces of the file between `\\n` characters (a final newline does not start another "
    "line, and a `\\r` stays part of its line)"
)


def known_lines(artifact: Artifact) -> list[str]:
    """The lines of the artifact that its sample holds completely."""
    text = complete_sample(artifact)
    return split_lines(text if text is not None else artifact.sample[: artifact.sample.rfind("\n") + 1])


class TextOperator(Operator):
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    max_lines = 10**9

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return 1 <= (artifact.details.get("lines") or 0) <= self.max_lines and artifact.size <= MAX_TEXT_BYTES


@register
class TextLineStats(TextOperator):
    """Line and word counts of a text file, with its most frequent words, as JSON."""

    name = "text-line-stats"
    purpose = Purpose.RECORD
    bookkeeping = True
    weight = 0.3

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        out = ctx.output_path(artifact, "stats", "json")
        params = {"SRC": artifact.path, "OUT": out}
        solution = python_script(render(line_stats, ["write_stats"], **params), "write_stats()")
        tests = render(line_stats, ["test_line_and_word_stats"], tag=ctx.tag, **params)
        instruction = (
            f"Write statistics of `{artifact.path}` to `{out}` as a JSON object with exactly three keys: "
            f"`lines`, the number of lines ({LINE_DEF}); `words`, the number of words, where a word is a maximal "
            "run of ASCII letters and digits (`[A-Za-z0-9]+`) and words are compared lowercased; and `top_words`, "
            "an array of the 5 most frequent lowercased words (fewer if there are fewer distinct words), each an "
            'object `{"word": ..., "count": ...}`, ordered by count (largest first), ties broken by the word '
            "in ascending order."
        )
        text = complete_sample(artifact)
        known = None if text is None else json.dumps(line_stats.stats(text), indent=2) + "\n"
        produced = data_artifact(
            out,
            known,
            Kind.JSON,
            {
                "type": "object",
                "keys": ["lines", "top_words", "words"],
                "numeric_keys": ["lines", "words"],
                "string_keys": [],
            },
        )
        return Step(solution=solution, tests=tests, instruction=instruction, produces=[produced])


@register
class TextPatternCount(TextOperator):
    """Lines containing a token of the file, numbered as `grep -n` prints them, and their count."""

    name = "text-pattern-count"
    purpose = Purpose.RECORD
    bookkeeping = True
    weight = 0.3

    @staticmethod
    def tokens(artifact: Artifact) -> list[str]:
        """Words of the sample (a prefix of the file, so each occurs in it)."""
        return sorted(set(re.findall(r"[A-Za-z][A-Za-z0-9_]{2,23}", artifact.sample)))

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return super().applies(artifact, discovery) and bool(self.tokens(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        found, lines = self.tokens(artifact), known_lines(artifact)
        partial = [t for t in found if 0 < sum(t in line for line in lines) < len(lines)]
        token = ctx.rng.choice(partial or found)
        out = ctx.output_path(artifact, f"{slug(token)}_lines", "txt")
        count = ctx.output_path(artifact, f"{slug(token)}_count", "txt")
        params = {"SRC": artifact.path, "TOKEN": token, "OUT": out, "COUNT": count}
        solution = python_script(render(line_counts, ["write_matches"], **params), "write_matches()")
        tests = render(line_counts, ["test_numbered_matching_lines", "test_match_count"], tag=ctx.tag, **params)
        instruction = (
            f"Then find every line of `{artifact.path}` that contains the text `{token}` (case-sensitive, anywhere "
            f"in the line, also inside a longer word), where {LINE_DEF}, and write those lines to `{out}` "
            "in file order, "
            f"one per line, each prefixed with its 1-based line number in `{artifact.path}` and a colon (`N:line`, "
            f"as `grep -n` prints them, nothing else in the file); also write the number of such lines as a plain "
            f"integer to `{count}`."
        )
        prefix = "".join(f"{n}:{line}\n" for n, line in enumerate(lines, 1) if token in line)
        produced = text_artifact(out, prefix if complete_sample(artifact) is not None else None, prefix.count("\n"))
        produced.sample = produced.sample or prefix[:SAMPLE_CHARS]  # a prefix of the output all the same
        return Step(solution=solution, tests=tests, instruction=instruction, produces=[produced])


@register
class TextUniqueCounts(TextOperator):
    """Each distinct line with how often it occurs, most frequent first."""

    name = "text-unique-counts"
    purpose = Purpose.RECORD
    bookkeeping = True
    weight = 0.3
    max_lines = 100_000

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        out = ctx.output_path(artifact, "line_counts", "txt")
        params = {"SRC": artifact.path, "OUT": out}
        solution = python_script(render(line_counts, ["write_unique_counts"], **params), "write_unique_counts()")
        tests = render(line_counts, ["test_distinct_lines_with_counts"], tag=ctx.tag, **params)
        instruction = (
            f"Count how often each distinct line occurs in `{artifact.path}` ({LINE_DEF}; an empty line is a "
            f"line too) and write one line per distinct line to `{out}`: the count as a plain integer (no padding), "
            "a tab, then the line itself exactly as in the file. Order them by count (largest first), ties broken "
            "by the line in ascending code-point order (the byte order of `LC_ALL=C sort`)."
        )
        lines = known_lines(artifact)
        known = line_counts.unique_counts(lines)
        produced = text_artifact(out, known if complete_sample(artifact) is not None else None, max(1, len(set(lines))))
        return Step(solution=solution, tests=tests, instruction=instruction, produces=[produced])
