"""Reports an operator reads out of an access log: each client's busiest window of a stated length (a
sliding window over its requests in time order, not a count per clock minute), the question a rate limit
is tuned by; and the traffic and error rate of each endpoint, the question a capacity plan starts from."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, register
from rst_synth.proposers.procedural.operators.kit.families import ReportOperator
from rst_synth.proposers.procedural.operators.logs.access_log_sessions import looks_like_access_log, on_hits
from rst_synth.proposers.procedural.operators.logs.shipped import access_bursts, access_endpoints


def _windows(artifact: Artifact) -> list[int]:
    """The windows whose busiest counts differ between clients in the sampled head of the log: a table whose
    every client has the same count tells nothing (the degenerate-output check refuses it)."""
    head = artifact.sample
    if len(head.encode("utf-8")) != artifact.size:
        head = head[: head.rfind("\n") + 1]  # a cut sample loses its partial last line
    return [w for w in (30, 60, 120, 300) if len({row[1] for row in access_bursts.bursts(head, w)[1:]}) > 1]


@register
class AccessLogBursts(ReportOperator):
    """Each client's most requests within any window of a stated number of seconds, and when."""

    name = "access-log-bursts"
    kinds = (Kind.TEXT,)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return looks_like_access_log(artifact) and bool(_windows(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        window = ctx.rng.choice(_windows(artifact))
        out = ctx.output_path(artifact, f"bursts_{window}s", "csv")
        params = {"LOG": artifact.path, "OUT": out, "WINDOW": window}
        solution = self.report_solution(on_hits(access_bursts, ["write_bursts"], params), call="write_bursts()")
        tests = on_hits(
            access_bursts, ["test_busiest_window_per_client", "test_windows_fit_and_hold_their_count"], params, ctx.tag
        )
        instruction = " ".join(
            f"""Find how hard each client of the access log `{artifact.path}` hit the server in a burst.
            Read the log as the common or combined log format (`CLIENT IDENT USER [DD/Mon/YYYY:HH:MM:SS +ZZZZ]
            "REQUEST" STATUS BYTES`, optionally followed by more fields); skip lines without that form or whose
            time is no real date, and convert times to UTC by their offset. For each client (the first field,
            compared as text), find the window of at most {window} seconds that holds the most of its requests:
            a window runs from one of its requests to a time at most {window} seconds later, both ends included
            (requests exactly {window} seconds apart are in one window). Write `{out}`, a CSV with the header
            `client,requests,from,to` and one row per client: the most requests in one such window, the time of
            the first and of the last request in that window as `YYYY-MM-DDTHH:MM:SSZ` (UTC); when several
            windows tie, the one that starts earliest. Order rows by `requests` descending, then client in
            code-point order; lines end with `\\n`.""".split()
        )
        produced = csv_output(out, ["client", "requests", "from", "to"], ["requests"]).model_copy(
            update={"end_result": True}
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


@register
class AccessLogEndpoints(ReportOperator):
    """Requests, bytes and the server-error rate of each method and path of an access log."""

    name = "access-log-endpoints"
    kinds = (Kind.TEXT,)
    weight = 2.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return looks_like_access_log(artifact)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        out = ctx.output_path(artifact, "endpoints", "csv")
        params = {"LOG": artifact.path, "OUT": out}
        solution = self.report_solution(
            on_hits(access_endpoints, ["write_endpoints"], params), call="write_endpoints()"
        )
        tests = on_hits(
            access_endpoints,
            ["test_traffic_per_endpoint", "test_every_request_with_a_path_counted_once"],
            params,
            ctx.tag,
        )
        instruction = " ".join(
            f"""Report the traffic of each endpoint in the access log `{artifact.path}`. Read it as the
            common or combined log format (`CLIENT IDENT USER [DD/Mon/YYYY:HH:MM:SS +ZZZZ] "REQUEST" STATUS
            BYTES`, optionally followed by more fields); skip lines without that form or whose time is no real
            date. An endpoint is the method and the path of a REQUEST of the form `METHOD PATH PROTOCOL` whose
            PATH starts with `/`, the path taken without its query string (from `?`) or fragment (from `#`);
            requests of any other form (`-`, a bare path) belong to no endpoint. Write `{out}`, a CSV with the
            header `method,path,requests,bytes,server_errors,error_rate` and one row per endpoint: its requests,
            the sum of BYTES (`-` counts as 0), the requests whose STATUS is 500 or more, and those as a share
            of its requests with 4 decimals. Order rows by `requests` descending, then method and path in
            code-point order; lines end with `\\n`.""".split()
        )
        produced = csv_output(
            out,
            ["method", "path", "requests", "bytes", "server_errors", "error_rate"],
            ["requests", "bytes", "server_errors", "error_rate"],
            end_result=True,
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
