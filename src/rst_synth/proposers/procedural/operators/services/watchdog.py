"""A watchdog for a service the workflow left running: it adopts the running process (a store in memory
must not lose its data to a restart), restarts it when it dies, zombies included, and stops it on SIGTERM.
Tests kill the live service and see it back on its port, then run the watchdog on processes of their own."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ServiceOperator
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, work_root
from rst_synth.proposers.procedural.operators.services.running import KV, Service, find_services
from rst_synth.proposers.procedural.operators.services.shipped import watchdog
from rst_synth.proposers.procedural.shipping import python_script, render, write_tool


@register
class ServiceWatchdog(ServiceOperator):
    """A watchdog that adopts the running service, restarts it when it dies and stops it on SIGTERM."""

    name = "service-watchdog"
    final = True  # a tool and pid files: nothing a later step builds on
    once = True  # the watchdog is the same tool for any service: a second one would be a copy
    kinds = (Kind.PYTHON_SOURCE, Kind.EXECUTABLE)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return places_ok(artifact, discovery, "bin", "run") and self._service(artifact, discovery) is not None

    def _service(self, artifact: Artifact, discovery: Discovery) -> Service | None:
        return next((s for s in find_services(discovery) if s.program == artifact.path), None)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        service = self._service(artifact, ctx.discovery)
        assert service is not None  # applies() checked it
        root = work_root(ctx.discovery)
        tool = fresh_path(ctx, f"{root}/bin", f"{service.name}_watchdog")
        pidfile = fresh_path(ctx, f"{root}/run", f"{service.name}.pid")
        own = fresh_path(ctx, f"{root}/run", f"{service.name}_watchdog.pid")
        fallback = fresh_path(ctx, f"{root}/run", f"{service.name}.log")
        solution = f"""mkdir -p {q(f"{root}/bin")} {q(f"{root}/run")}
{write_tool(tool, render(watchdog, ["main"]), "sys.exit(main(sys.argv))")}
pid=$({python_script(render(watchdog, ["show_pid"], PROGRAM=service.program), "show_pid()")}
)
log=$(readlink "/proc/$pid/fd/1")
[ -f "$log" ] || log={q(fallback)}
echo "$pid" > {q(pidfile)}
mapfile -d '' command < "/proc/$pid/cmdline"
nohup {q(tool)} {q(pidfile)} "$log" -- "${{command[@]}}" >/dev/null 2>&1 </dev/null &
echo $! > {q(own)}
sleep 1
test "$(cat {q(pidfile)})" = "$pid\""""
        tests = render(
            watchdog,
            [
                "test_watchdog_brings_the_service_back",
                "test_watchdog_starts_restarts_and_stops",
                "test_watchdog_adopts_only_its_command",
            ],
            tag=ctx.tag,
            TOOL=tool,
            PIDFILE=pidfile,
            WATCHDOG_PIDFILE=own,
            PROGRAM=service.program,
            PROTOCOL=service.protocol,
            FALLBACK_LOG=fallback,
        )
        keeps = (
            "it keeps its data in memory only, so it must not be restarted now"
            if service.protocol == KV
            else "do not restart it now"
        )
        instruction = (
            f"The service the workflow started from `{service.program}` (the process running it, listening "
            f"on a port of 127.0.0.1) must come back when it dies. Write a watchdog, `{tool}` (an executable file "
            f"with a `#!` line), run as `{tool} PIDFILE LOGFILE -- COMMAND [ARG...]` in the foreground. When it "
            "starts, it adopts the process that PIDFILE names (one line, the pid) if that process is alive and its "
            "command line (as `/proc/PID/cmdline` gives it) is exactly COMMAND ARG...; otherwise it starts COMMAND "
            "with those arguments (standard input from /dev/null, standard output and error appended to LOGFILE) "
            "and writes the new pid to PIDFILE. From then on, whenever the watched process is no longer alive (it "
            "exited, was killed, or is a zombie, state `Z`), it starts the command again the same way within 2 "
            "seconds and rewrites PIDFILE. On SIGTERM it stops the watched process (SIGTERM, then SIGKILL after 5 "
            "seconds), removes PIDFILE and exits with status 0. Then put the running service under the watchdog "
            f"without a restart ({keeps}): write its pid to `{pidfile}` and start the watchdog in the background, "
            "so that it keeps running after you are done, with that PIDFILE, the service's exact command line, "
            "and as LOGFILE the file the service's standard output goes to now when that is a regular file "
            f"(`/proc/PID/fd/1`), else `{fallback}`; write the watchdog's own pid to `{own}`."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
