"""What a test checks that the instruction usually leaves open: the whole text of a free-layout output,
and a process found by the position of an argument (the case a correct `python3 -u` start failed on)."""

from __future__ import annotations

from rst_synth.task import OutputContract
from rst_synth.validator.strictness import open_details

WHOLE_JSON = b'from pathlib import Path\n\n\ndef test_a():\n    assert Path("/app/t.json").read_text() == "{}"\n'
PARSED_JSON = (
    b"import json\nfrom pathlib import Path\n\n\ndef test_a():\n"
    b'    assert json.loads(Path("/app/t.json").read_text()) == {}\n'
)
BY_POSITION = b"def find(argv):\n    return argv[:2] == ['python3', 'kvd.py'] or argv[1] == 'kvd.py'\n"
IN_THE_FIRST_TWO = (
    b"def runs(pid, program):\n    return program in argv_of(pid)[:2]\n"  # the helper that failed `python3 -u`
)
ANYWHERE = b"def find(argv):\n    return any(a.endswith('kvd.py') for a in argv) and argv[0]\n"


def test_the_whole_text_of_a_json_output_is_named() -> None:
    found = open_details({"tests/test_step_r1s1.py": WHOLE_JSON}, {})
    assert found == ["test_step_r1s1.py compares the whole text of /app/t.json, whose layout is free"]


def test_a_parsed_output_or_a_fixed_layout_is_not() -> None:
    assert open_details({"tests/test_a.py": PARSED_JSON}, {}) == []
    fixed = OutputContract(path="/app/t.json", form="json", fixed=["layout"])
    assert open_details({"tests/test_a.py": WHOLE_JSON}, {"/app/t.json": fixed}) == []
    assert open_details({"tests/test_a.py": WHOLE_JSON.replace(b"t.json", b"t.txt")}, {}) == []


def test_a_process_found_by_the_position_of_an_argument_is_named() -> None:
    found = open_details({"tests/test_kv.py": BY_POSITION}, {})
    assert found == ["test_kv.py finds a process by the position of an argument (line 2)"]
    assert open_details({"tests/test_kv.py": ANYWHERE}, {}) == []
    found = open_details({"tests/test_kv.py": IN_THE_FIRST_TWO}, {})
    assert found == ["test_kv.py finds a process by the position of an argument (line 2)"]
