"""The client plays whole matches against the real services, driven by a scripted player.

Rating, table, profile and matchmaking run in-process on real sockets; the client signs in as a
guest, queues (a robot fills the other seat after 0.5 s), plays every turn by picking the first
legal action, and prints the result and the profile's stats for the game.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from services.client.cli import PlayRequest, play, show_profile
from services.client.session import SESSION_FILE
from tests.client.harness import ScriptedLines, backend, first_choice

MATCH_TIMEOUT = 45.0  # seconds; a four_down match against the robot (1 s per robot move) takes about 12


async def play_match(tmp_path: Path, game: str, options: dict[str, object]) -> tuple[int, list[str], ScriptedLines]:
    output: list[str] = []
    player = ScriptedLines(first_choice)
    async with backend(tmp_path) as endpoints:
        status = await asyncio.wait_for(play(PlayRequest(game, 2, options=options), endpoints, player, output.append), MATCH_TIMEOUT)
        await show_profile(endpoints, output.append)
    return status, output, player


async def test_four_down_against_a_robot_to_the_end_with_result_and_profile(tmp_path: Path) -> None:
    status, output, player = await play_match(tmp_path, "four_down", {})
    text = "\n".join(output)
    assert status == 0, text[-2000:]
    assert "In the queue" in text and "Seated at seat" in text
    assert "The match is over." in text
    assert any(line.startswith(("You won!", "You lost.", "Draw")) for line in output)
    assert "four_down: played 1," in text
    assert "Level " in text and "level points" in text
    assert "You were shown your slot 2 and your slot 3" in text  # the first look reached the client
    assert len(player.menus) >= 2
    stored = tmp_path / "home" / SESSION_FILE
    assert stat.S_IMODE(os.stat(stored).st_mode) == 0o600


async def test_golf_one_hole_against_a_robot(tmp_path: Path) -> None:
    status, output, _ = await play_match(tmp_path, "golf", {"holes": 1})
    text = "\n".join(output)
    assert status == 0, text[-2000:]
    assert "Four Card Golf" in text and "Knock" in text
    assert "golf: played 1," in text


async def test_the_same_device_signs_in_to_the_same_guest(tmp_path: Path) -> None:
    async with backend(tmp_path) as endpoints:
        first: list[str] = []
        second: list[str] = []
        assert await show_profile(endpoints, first.append) == 0
        assert await show_profile(endpoints, second.append) == 0
    assert first[0] == second[0] and "(guest)" in first[0]


@pytest.mark.parametrize("bad", ['{"holes": 4}'])
async def test_a_refused_queue_is_reported_and_nothing_is_played(tmp_path: Path, bad: str) -> None:
    import json

    output: list[str] = []
    async with backend(tmp_path) as endpoints:
        status = await play(PlayRequest("golf", 2, options=json.loads(bad)), endpoints, ScriptedLines(first_choice), output.append)
    assert status == 1
    assert any("BAD_OPTION" in line for line in output)
    assert not any("Seated" in line for line in output)
