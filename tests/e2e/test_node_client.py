"""A client that is not ours: a Node.js program plays a whole match against the real services.

``tests/e2e/node/client.mjs`` uses only ``@grpc/grpc-js`` and ``@grpc/proto-loader`` from npm and the
``.proto`` files of ``protos/``: it signs in as a guest, queues for a casual ``four_down`` match, is
seated with a robot, plays to the end and reads its progress. This test starts all four services
in-process on real sockets (SQLite, one database each), runs the client as a subprocess and checks
its answer and the ladder's. Limits: skipped when ``node`` is not installed (a failure under CI);
installs the client's npm packages (``npm ci``) on first use, which needs the npm registry.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from cardroom.rating.v1 import rating_pb2, rating_pb2_grpc

from services.matchmaking.app import create_server as create_matchmaking
from services.profile.app import create_server as create_profile
from services.rating.app import create_server as create_rating
from services.table.app import create_server as create_table_server
from tests.support.servers import player_metadata, settings_for

# The first run installs the npm packages (up to NPM_INSTALL_SECONDS) before the match (up to CLIENT_SECONDS).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

NODE_DIR = Path(__file__).resolve().parent / "node"
# A cold `npm ci` of two small packages takes seconds; 300 s allows a slow registry, not a hang.
NPM_INSTALL_SECONDS = 300
# The client asks for quick robots (robot_delay 0.05 s), so a match to 100 points takes seconds; this
# bounds a hang, and the client's own limits end it sooner on failure.
CLIENT_SECONDS = 200
# Seats are filled with a robot this soon, so that the test does not wait for a second human.
ROBOT_WAIT_SECONDS = 0.5
FOUR_DOWN_LEVEL_POINTS = {22, 8, 3}  # FD-16: win, draw, loss


@dataclass(frozen=True)
class Platform:
    addresses: dict[str, str]


def node_or_skip() -> str:
    """The ``node`` executable; skips when it is missing, except under CI where that is a failure."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):  # as tests/conftest.py: under CI nothing may be skipped for a missing tool
            pytest.fail("node is not installed: CI must run the Node.js client test")
        pytest.skip("node is not installed")
    return node


def install_client_packages() -> None:
    """``npm ci`` (``npm install`` without a lock file) in the client's folder when ``node_modules`` is missing."""
    if (NODE_DIR / "node_modules").is_dir():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("node is installed but npm is not: cannot install the client's packages")
    command = [npm, "ci" if (NODE_DIR / "package-lock.json").is_file() else "install", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = subprocess.run(command, cwd=NODE_DIR, capture_output=True, text=True, timeout=NPM_INSTALL_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(command)} took more than {NPM_INSTALL_SECONDS} s")
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


@pytest.fixture
def node() -> str:
    executable = node_or_skip()
    install_client_packages()
    return executable


@pytest.fixture
async def platform(tmp_path: Path) -> AsyncIterator[Platform]:
    """Rating, table, profile and matchmaking on real sockets, each with its own SQLite database."""
    urls = {name: f"sqlite:///{tmp_path / name}.sqlite3" for name in ("rating", "table", "profile", "matchmaking")}
    started = []
    try:
        rating = await create_rating(settings_for("rating", urls["rating"]))
        started.append(rating)
        rating_address = f"127.0.0.1:{await rating.start('127.0.0.1:0')}"
        table, _host = await create_table_server(settings_for("table", urls["table"]), rating_address=rating_address, shard="node-e2e")
        started.append(table)
        table_address = f"127.0.0.1:{await table.start('127.0.0.1:0')}"
        profile = await create_profile(settings_for("profile", urls["profile"]), rating_address=rating_address)
        started.append(profile)
        profile_address = f"127.0.0.1:{await profile.start('127.0.0.1:0')}"
        matchmaking = await create_matchmaking(
            settings_for("matchmaking", urls["matchmaking"]),
            table_address=table_address,
            rating_address=rating_address,
            robot_wait_seconds=ROBOT_WAIT_SECONDS,
        )
        started.append(matchmaking)
        matchmaking_address = f"127.0.0.1:{await matchmaking.start('127.0.0.1:0')}"
        yield Platform(
            {"profile": profile_address, "matchmaking": matchmaking_address, "table": table_address, "rating": rating_address}
        )
    finally:
        for app in reversed(started):
            await app.stop(0)


@dataclass(frozen=True)
class ClientRun:
    returncode: int
    stdout: str
    stderr: str

    def report(self) -> str:
        return f"node client exited {self.returncode}\n--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"


async def run_client(node: str, platform: Platform) -> ClientRun:
    """``node client.mjs`` as an asyncio subprocess, so that the servers in this loop keep serving."""
    env = {
        **os.environ,
        "PROFILE_ADDRESS": platform.addresses["profile"],
        "MATCHMAKING_ADDRESS": platform.addresses["matchmaking"],
        "RATING_ADDRESS": platform.addresses["rating"],
    }
    process = await asyncio.create_subprocess_exec(
        node, "client.mjs", cwd=NODE_DIR, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), CLIENT_SECONDS)
    except asyncio.TimeoutError:
        process.kill()
        stdout, stderr = await process.communicate()
        run = ClientRun(-1, stdout.decode(errors="replace"), stderr.decode(errors="replace"))
        pytest.fail(f"the node client did not finish within {CLIENT_SECONDS} s\n{run.report()}")
    return ClientRun(process.returncode or 0, stdout.decode(errors="replace"), stderr.decode(errors="replace"))


def answer_of(run: ClientRun) -> dict[str, Any]:
    """The client's one JSON line on stdout."""
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"the client prints exactly one JSON line\n{run.report()}"
    try:
        answer = json.loads(lines[0])
    except json.JSONDecodeError:
        pytest.fail(f"the client's answer is not JSON\n{run.report()}")
    assert isinstance(answer, dict), run.report()
    return answer


async def test_a_node_client_built_from_the_protos_alone_plays_a_casual_match_and_reads_its_progress(
    node: str, platform: Platform
) -> None:
    run = await run_client(node, platform)
    assert run.returncode == 0, run.report()
    answer = answer_of(run)
    assert set(answer) == {"player_id", "played", "level_points", "rating"}, run.report()
    assert answer["played"] == 1, run.report()
    assert answer["level_points"] in FOUR_DOWN_LEVEL_POINTS, run.report()
    assert answer["rating"] == 1500.0, f"a casual match against a robot leaves the ladder alone\n{run.report()}"

    async with grpc.aio.insecure_channel(platform.addresses["rating"]) as channel:
        ladder = rating_pb2_grpc.RatingServiceStub(channel)
        progress = (
            await ladder.GetProgress(rating_pb2.GetProgressRequest(player_id=answer["player_id"]), metadata=player_metadata(answer["player_id"]))
        ).progress
        history = (
            await ladder.GetHistory(rating_pb2.GetHistoryRequest(), metadata=player_metadata(answer["player_id"]))
        ).entries
    four_down = [stats for stats in progress.stats if stats.game == "four_down"]
    assert len(four_down) == 1 and four_down[0].played == 1
    assert four_down[0].won + four_down[0].drawn + four_down[0].lost == 1
    assert progress.level_points == answer["level_points"] > 0
    assert [(entry.game, entry.level_points) for entry in history] == [("four_down", answer["level_points"])]
