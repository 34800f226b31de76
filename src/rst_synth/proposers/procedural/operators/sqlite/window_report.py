"""SQL that needs window functions or a CTE: a ranked, running or filtered report of a SQLite table,
kept as a query file the tests run and as a CSV the tests recompute."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.names import slug
from rst_synth.proposers.procedural.operators.kit.roles import table_fitting
from rst_synth.proposers.procedural.operators.kit.tables import sqlite_tables
from rst_synth.proposers.procedural.operators.kit.workflow import outside_git
from rst_synth.proposers.procedural.operators.sqlite.shipped import window_report
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

VARIANTS = ("top_per_group", "running_total", "above_average")

QUERIES = {
    "top_per_group": """SELECT g, rnk AS "rank", rid AS "rowid", v FROM (
  SELECT CAST("{g}" AS TEXT) AS g, rowid AS rid, "{v}" AS v,
         RANK() OVER (PARTITION BY CAST("{g}" AS TEXT) ORDER BY "{v}" DESC) AS rnk
  FROM "{t}" WHERE "{g}" IS NOT NULL AND typeof("{v}") IN ('integer', 'real'))
WHERE rnk <= {n} ORDER BY g, rnk, rid""",
    "running_total": """SELECT CAST("{g}" AS TEXT) AS g, rowid AS "rowid", "{v}" AS v,
       SUM("{v}") OVER (PARTITION BY CAST("{g}" AS TEXT) ORDER BY "{v}" DESC, rowid
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_total
FROM "{t}" WHERE "{g}" IS NOT NULL AND typeof("{v}") IN ('integer', 'real')
ORDER BY g, "{v}" DESC, rowid""",
    "above_average": """WITH groups AS (
  SELECT CAST("{g}" AS TEXT) AS g, COUNT(*) AS n, SUM("{v}") AS total FROM "{t}"
  WHERE "{g}" IS NOT NULL AND typeof("{v}") IN ('integer', 'real') GROUP BY CAST("{g}" AS TEXT))
SELECT g, n AS "rows", total FROM groups WHERE total > (SELECT AVG(total) FROM groups)
ORDER BY total DESC, g""",
}

USES = {"top_per_group": Use.STATS, "running_total": Use.SUM, "above_average": Use.SUM}
"""What each report does with its value column: ranks it (a measure), or totals it (an additive one)."""


def _choices(artifact: Artifact, variant: str | None = None) -> list[tuple[str, str, str]]:
    """(table, group, value) for `variant` (any variant when None): a column that categorises and repeats,
    and a value the report's arithmetic means something for."""
    uses = [USES[variant]] if variant else sorted(set(USES.values()))
    return [
        (t, g, v)
        for t in sorted(sqlite_tables(artifact))
        for g in table_fitting(artifact, t, Use.GROUP)
        for v in dict.fromkeys(v for use in uses for v in table_fitting(artifact, t, use))
        if g != v
    ]


@register
class SqliteWindowReport(Operator):
    """A report that needs window functions or a CTE, saved as a query file and as a CSV."""

    name = "sqlite-window-report"
    purpose = Purpose.REPORT
    uses = (Use.GROUP, Use.STATS, Use.SUM)
    kinds = (Kind.SQLITE,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return outside_git(artifact, discovery) and "sqlite3" in discovery.python_modules and bool(_choices(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        variant = ctx.rng.choice([v for v in VARIANTS if _choices(artifact, v)])
        table, group, value = ctx.rng.choice(_choices(artifact, variant))
        top = ctx.rng.choice((1, 2, 3))
        query = QUERIES[variant].format(g=group, v=value, t=table, n=top)
        sql = ctx.output_path(artifact, f"{slug(table)}_{variant}", "sql")
        out = ctx.output_path(artifact, f"{slug(table)}_{variant}", "csv")
        header = {
            "top_per_group": [group, "rank", "rowid", value],
            "running_total": [group, "rowid", value, "running_total"],
            "above_average": [group, "rows", "total"],
        }[variant]
        params: dict[str, object] = {"DB": artifact.path, "TABLE": table, "GROUP": group, "VALUE": value}
        params |= {"VARIANT": variant, "TOP": top, "SQL": sql, "OUT": out, "HEADER": header}
        write = render(window_report, ["write_report"], DB=artifact.path, SQL=sql, OUT=out, HEADER=header)
        solution = f"cat > {q(sql)} <<'SQL'\n{query};\nSQL\n{python_script(write, 'write_report()')}"
        tests = render(window_report, ["test_query_file_returns_the_report", "test_report_csv"], tag=ctx.tag, **params)
        where = (
            f"rows of table `{table}` whose `{group}` is not NULL and whose `{value}` is a number (SQLite "
            f"`typeof` integer or real); `{group}` values are compared as text (`CAST(... AS TEXT)`, code-point order)"
        )
        what = {
            "top_per_group": (
                f"for each `{group}` value, the rows ranked by `{value}` (largest first) with SQL `RANK()` "
                f"semantics (equal values share a rank and the next rank skips), keeping rank {top} or better; "
                f"columns `{group}`, `rank`, `rowid` (the row's rowid), `{value}`; ordered by `{group}`, rank, rowid"
            ),
            "running_total": (
                f"every row with the running total of `{value}` within its `{group}` value, rows of a group taken "
                f"by `{value}` (largest first) then rowid; columns `{group}`, `rowid`, `{value}`, `running_total` "
                "(the sum over the group's rows up to and including this one); ordered by "
                f"`{group}`, then that order"
            ),
            "above_average": (
                f"the `{group}` values whose total (sum of `{value}`) is greater than the average of all group "
                f"totals; columns `{group}`, `rows` (the group's row count), `total`; ordered by total (largest "
                f"first), then `{group}`"
            ),
        }[variant]
        instruction = (
            f"Write a single SQL `SELECT` statement (a `WITH` clause first is fine; no other statements) for "
            f"the SQLite database `{artifact.path}` and save it as `{sql}`. Over the {where}, it returns {what}. "
            f"Run it and write the result to `{out}`: a comma-separated file with the header "
            f"`{','.join(header)}` and one line per result row; numbers as SQLite returns them in decimal notation."
        )
        produced = Artifact(
            path=out,
            kind=Kind.CSV,
            end_result=variant == "above_average",  # one row per group: a summary
            details={"header": header, "numeric": header[1:], "categorical": [], "rows": None, "delimiter": ","},
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced, Artifact(path=sql, kind=Kind.TEXT)],
        )
