"""Every conformance scenario of the project (and the public examples) plays as it says, each its own
test so that a failure names its scenario; and the runner's command line reports them as FORMAT.md asks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared import conformance

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
FILES = conformance.scenario_files([str(SCENARIOS)])


@pytest.mark.parametrize("path", FILES, ids=[str(path.relative_to(SCENARIOS)) for path in FILES])
def test_scenario_holds(path: Path) -> None:
    conformance.run_scenario(json.loads(path.read_text(encoding="utf-8")))


def test_every_game_and_the_examples_have_scenarios() -> None:
    folders = {path.parent.name for path in FILES}
    assert folders >= {"four_down", "golf", "cambio", "cabo", "quatro", "tower", "examples"}


def test_the_runner_prints_one_line_per_scenario_and_the_totals_last(capsys: pytest.CaptureFixture[str]) -> None:
    assert conformance.main([str(SCENARIOS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"{len(FILES)} passed, 0 failed"
    assert len(lines) == len(FILES) + 1 and all(line.startswith("PASS ") for line in lines[:-1])


def test_the_runner_fails_a_scenario_that_uses_what_the_format_does_not_define(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"name": "uses a key nobody defined", "game": "four_down", "seats": 2, "teleport": True}))
    assert conformance.main([str(unknown)]) == 1
    assert capsys.readouterr().out.splitlines() == ["FAIL uses a key nobody defined: unknown scenario keys ['teleport']", "0 passed, 1 failed"]
