"""What a kept state records of the processes its solution left running."""

from __future__ import annotations

from rst_synth.validator.services import Service, Services, from_label, parse_survey, to_label

SURVEY = (
    "proc\t20\t1\t1000\t/app\tpython3\x01-m\x01http.server\x018080\x01\tPATH=/usr/bin\x01HOME=/home/agent\x01"
    "\t/var/log/web.log\t/var/log/web.log\n"
    "proc\t21\t20\t1000\t/app\tpython3\x01worker\x01\t\tpipe:[1]\t/dev/null\n"  # started by the service
    "listen\t0100007F:1F90\n"
    "listen\t00000000000000000000000000000000:0050\n"
)


def test_a_survey_keeps_top_level_services_and_their_ports() -> None:
    found = parse_survey(SURVEY)
    assert found.services == [
        Service(
            command=["python3", "-m", "http.server", "8080"],
            folder="/app",
            uid="1000",
            env={"PATH": "/usr/bin", "HOME": "/home/agent"},
            stdout="/var/log/web.log",
            stderr="/var/log/web.log",
        )
    ]
    assert found.services[0].redirections() == ">>/var/log/web.log 2>&1 </dev/null"
    assert Service(command=["a"], stderr="/tmp/e").redirections() == ">>/dev/null 2>>/tmp/e </dev/null"
    assert found.ports == [80, 8080]
    assert found and not found.unreadable


def test_nothing_running_is_an_empty_survey_and_a_kernel_thread_is_unreadable() -> None:
    assert not parse_survey("")
    odd = parse_survey("proc\t30\t1\t0\t/\t\t\t\t\n")
    assert odd.unreadable and odd.services == []


def test_the_label_round_trips_and_a_damaged_one_is_unreadable() -> None:
    found = parse_survey(SURVEY)
    assert from_label(to_label(found)) == found
    assert from_label("{not json").unreadable
    assert from_label(to_label(Services())) == Services()
