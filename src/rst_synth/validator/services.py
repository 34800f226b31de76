"""The processes a solution leaves running (the services its instruction keeps up), recorded when
its final state is kept and started again in a container of that state: a committed image holds
files, not processes.

What is recorded of each service (a process whose parent is the container's PID 1, so its own
workers are left to it): its command line, folder, user and environment, and the TCP ports the
container listened on. Starting again runs each command the same way and waits for the ports. A
service that kept data only in memory comes back without it; the validator's checks that start
from a kept state therefore prove it first (validator/kept.py).
"""

from __future__ import annotations

import asyncio
import json
import shlex

from pydantic import BaseModel, Field

from rst_synth.sandbox import Container
from rst_synth.task import TaskPaths

_SEP = "\x01"
# The xtrace log goes (it can be megabytes and nothing reads it again); then one line per process
# other than PID 1 (the keep-alive) and this shell, zombies left out: pid, parent, uid, folder,
# command line and environment (their NULs made \x01), where its output and errors go; then the
# listening sockets' tables.
_SURVEY = (
    f"rm -f {TaskPaths.CONTAINER_XTRACE_LOG}\n"
    + r"""for d in /proc/[0-9]*; do
  p=${d#/proc/}; { [ "$p" = 1 ] || [ "$p" = $$ ]; } && continue
  read -r s < "$d/stat" 2>/dev/null || continue
  case "$s" in *") Z "*) continue;; esac
  rest=${s##*) }; set -- $rest
  uid=$(awk '/^Uid:/ {print $2}' "$d/status" 2>/dev/null)
  printf 'proc\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$2" "$uid" "$(readlink "$d/cwd")" \
    "$(tr '\0' '\001' < "$d/cmdline")" "$(tr '\0' '\001' < "$d/environ" 2>/dev/null)" \
    "$(readlink "$d/fd/1" 2>/dev/null)" "$(readlink "$d/fd/2" 2>/dev/null)"
done
cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" {print "listen\t" $2}'
"""
)
_WAIT_SEC = 15


class Service(BaseModel):
    command: list[str] = Field(min_length=1)
    folder: str = "/"
    uid: str = "0"
    env: dict[str, str] = Field(default_factory=dict)
    stdout: str | None = None
    """The file its output went to (a log the tests may read), where it was a file."""
    stderr: str | None = None

    def assignments(self) -> str:
        """Its environment as shell-quoted `NAME=value` words, for `env -i`."""
        return " ".join(shlex.quote(f"{k}={v}") for k, v in sorted(self.env.items()))

    def redirections(self) -> str:
        """Its output and errors sent where they went (appended), else to /dev/null; input from /dev/null."""
        out, err = (shlex.quote(p) if p else "/dev/null" for p in (self.stdout, self.stderr))
        errors = "2>&1" if self.stderr == self.stdout else f"2>>{err}"
        return f">>{out} {errors} </dev/null"


class Services(BaseModel):
    """What was running when a state was kept; empty when nothing was."""

    services: list[Service] = Field(default_factory=list)
    ports: list[int] = Field(default_factory=list)
    """TCP ports something listened on."""
    unreadable: bool = False
    """A process ran whose command line could not be read (a kernel thread, a process gone away)."""

    def __bool__(self) -> bool:
        return bool(self.services) or self.unreadable


async def survey(box: Container) -> Services:
    """The services running in `box` (module docstring)."""
    found = await box.exec(_SURVEY, timeout=30, user="root")
    if not found.ok:
        return Services(unreadable=True)
    return parse_survey(found.output)


def parse_survey(output: str) -> Services:
    processes: dict[str, tuple[str, Service | None]] = {}
    ports: set[int] = set()
    for line in output.splitlines():
        kind, *fields = line.split("\t")
        if kind == "listen" and fields:
            ports.add(int(fields[0].rsplit(":", 1)[-1], 16))
        elif kind == "proc" and len(fields) == 8:
            pid, parent, uid, folder, command, environ, stdout, stderr = fields
            argv = [a for a in command.split(_SEP) if a != ""] if command else []
            env = dict(item.split("=", 1) for item in environ.split(_SEP) if "=" in item)
            processes[pid] = (
                parent,
                Service(
                    command=argv,
                    folder=folder or "/",
                    uid=uid or "0",
                    env=env,
                    stdout=_file(stdout),
                    stderr=_file(stderr),
                )
                if argv
                else None,
            )
    services, unreadable = [], False
    for parent, service in processes.values():
        if parent in processes:
            continue  # started by a service: that service starts it again
        if service is None:
            unreadable = True
        else:
            services.append(service)
    return Services(services=services, ports=sorted(ports), unreadable=unreadable)


def _file(target: str) -> str | None:
    """Where a descriptor points, where that is a file a restart can append to (not a pipe, a socket, a
    terminal or /dev/null)."""
    return target if target.startswith("/") and not target.startswith(("/dev/", "/proc/")) else None


def to_label(services: Services) -> str:
    return services.model_dump_json(exclude_defaults=True)


def from_label(text: str) -> Services:
    try:
        return Services.model_validate(json.loads(text))
    except ValueError:
        return Services(unreadable=True)


async def restart(box: Container, services: Services) -> bool:
    """Start `services` again in `box`, each as it ran, and wait for their ports; False when a port
    did not come back within 15 s."""
    for service in services.services:
        await box.exec(start_line(service), timeout=30, user=service.uid)
    return await wait_for_ports(box, services.ports)


def start_line(service: Service) -> str:
    """The shell line that starts `service` as it ran: its folder, its environment alone, its own session."""
    env = service.assignments()
    command = " ".join(shlex.quote(a) for a in service.command)
    return f"cd {shlex.quote(service.folder)} 2>/dev/null; env -i {env} setsid {command} {service.redirections()} &"


async def wait_for_ports(box: Container, ports: list[int]) -> bool:
    """Wait until something listens on each of `ports` again; False after 15 s."""
    if not ports:
        await asyncio.sleep(0.2)  # nothing to wait for but the processes' own start
        return True
    wanted = " ".join(f"{p:04X}" for p in ports)
    wait = f"""for _ in $(seq {_WAIT_SEC * 10}); do
  up=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" {{split($2, a, ":"); print a[2]}}')
  missing=0; for p in {wanted}; do case " $(echo $up) " in *" $p "*) ;; *) missing=1;; esac; done
  [ $missing = 0 ] && exit 0; sleep 0.1
done; exit 1"""
    return (await box.exec(wait, timeout=_WAIT_SEC + 15, user="root")).ok


async def stop_all(box: Container) -> None:
    """Stop every process of `box` but its keep-alive (PID 1), and wait until no port is listened on."""
    stop = r"""others() { for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = 1 ] || [ "$p" = $$ ] || echo "$p"; done; }
kill -TERM $(others) 2>/dev/null
for _ in $(seq 50); do
  [ -z "$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A"')" ] && break; sleep 0.1
done
kill -KILL $(others) 2>/dev/null; true"""
    await box.exec(stop, timeout=30, user="root")
