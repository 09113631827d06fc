"""``cardroom``: play a game from a terminal, or print your profile.

    cardroom play GAME [--seats N] [--ranked] [--options JSON] [--private CODE] [--host] [--robots-after S]
    cardroom profile

Signs this device in as a guest (see ``session``), finds a seat (queue or private table, see
``lobby``), plays the match to its end (see ``play``), prints the result and then the player's
profile. Addresses come from ``CARDROOM_PROFILE_ADDRESS`` and ``CARDROOM_MATCHMAKING_ADDRESS``;
the table's address comes from matchmaking.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import grpc
from cardroom.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from cardroom.profile.v1 import profile_pb2

from shared.config import service_address

from services.client import lobby
from services.client.connection import TableConnection, reason_of
from services.client.families import family_for
from services.client.play import Lines, PlayLoop, Quit, StdinLines, outcome_line
from services.client.reveal import DEFAULT_REVEAL_SECONDS, RevealBoard
from services.client.session import Session

GAMES = ("four_down", "golf", "cambio", "cabo", "quatro", "tower")
# After the match the table hands the result to rating through its outbox (delivered within a
# couple of seconds); the profile is read again until it shows the match, for at most this long.
PROFILE_WAIT_SECONDS = 10.0
PROFILE_POLL_SECONDS = 0.3
Write = Callable[[str], Any]


@dataclass
class PlayRequest:
    """What ``cardroom play`` was asked for."""

    game: str
    seats: int = 2
    ranked: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    private: str = ""
    host: bool = False
    robots_after: float | None = None


@dataclass
class Endpoints:
    profile: str
    matchmaking: str
    home: Path | None = None

    @classmethod
    def from_environment(cls) -> Endpoints:
        return cls(service_address("profile"), service_address("matchmaking"))


def profile_lines(profile: profile_pb2.Profile, game: str | None = None) -> list[str]:
    """The profile as text: name, level, level points, and stats (of ``game`` only, when given)."""
    progress = profile.progress
    lines = [
        f"{profile.display_name or 'Guest'}{' (guest)' if profile.guest else ''}",
        f"Level {progress.level or 1}: {progress.level_points} level points "
        f"({progress.points_to_next_level} to the next level)",
    ]
    if profile.HasField("rating") and profile.rating.rated_matches:
        lines.append(f"Rating {profile.rating.rating:.0f} ± {profile.rating.deviation:.0f}")
    if progress.badges:
        lines.append("Badges: " + ", ".join(badge.game for badge in progress.badges))
    stats = [s for s in progress.stats if game is None or s.game == game]
    for s in stats:
        best = f", best round {s.best_round}" if s.HasField("best_round") else ""
        lines.append(
            f"{s.game}: played {s.played}, won {s.won}, drawn {s.drawn}, lost {s.lost}{best}, average round {s.average_round:.1f}"
        )
    if not stats:
        lines.append("No matches recorded yet" + (f" for {game}" if game else ""))
    return lines


def played(profile: profile_pb2.Profile, game: str) -> int:
    return next((s.played for s in profile.progress.stats if s.game == game), 0)


async def play(request: PlayRequest, endpoints: Endpoints, lines: Lines, write: Write, *, clear_screen: bool = False) -> int:
    """The whole ``cardroom play``: sign in, seat, play, result, profile. Returns the exit status."""
    profile_channel = grpc.aio.insecure_channel(endpoints.profile)
    matchmaking_channel = grpc.aio.insecure_channel(endpoints.matchmaking)
    try:
        session = Session(profile_channel, endpoints.home)
        await session.metadata()
        before = await session.profile()
        reveal_seconds = before.preferences.reveal_seconds or DEFAULT_REVEAL_SECONDS
        stub = matchmaking_pb2_grpc.MatchmakingServiceStub(matchmaking_channel)
        options = dict(request.options)
        seated = await _unfinished_table(stub, session)
        if seated is not None:
            write(f"You have a {seated.game} match going on: back to it.")
        elif request.host:
            seated = await lobby.host_private(stub, session.metadata, request.game, request.seats, options, lines, write)
        elif request.private:
            seated = await lobby.join_private(stub, session.metadata, request.private, write)
        else:
            seated = await lobby.queue(stub, session.metadata, request.game, request.seats, options, request.ranked, write, request.robots_after)
        write(f"Seated at seat {seated.seat + 1} of table {seated.table_id}.")
        game = seated.game or request.game
        connection = TableConnection(seated, session.metadata, stub)
        loop = PlayLoop(
            connection, family_for(game), lines, write, RevealBoard(reveal_seconds), clear_screen=clear_screen
        )
        try:
            final = await loop.run()
        except Quit:
            write("You left the screen; the table goes on (run `cardroom play` again to get back to it).")
            return 0
        finally:
            await connection.close()
        write(outcome_line(loop.view, final.seat))
        write("")
        for line in profile_lines(await _recorded(session, game, played(before, game)), game):
            write(line)
        return 0
    except grpc.aio.AioRpcError as error:
        write(f"Refused: {error.details()} ({reason_of(error) or error.code().name})")
        return 1
    finally:
        await profile_channel.close()
        await matchmaking_channel.close()


async def _unfinished_table(stub: matchmaking_pb2_grpc.MatchmakingServiceStub, session: Session) -> matchmaking_pb2.Seated | None:
    """The seat at the player's unfinished table, if any (a player who quit or lost the connection)."""
    try:
        answer = await stub.LocateTable(matchmaking_pb2.LocateTableRequest(), metadata=await session.metadata())
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.NOT_FOUND:
            return None
        raise
    return answer.seated


async def _recorded(session: Session, game: str, played_before: int) -> profile_pb2.Profile:
    """The profile once it shows the match just played (or after the wait, as it is)."""
    deadline = time.monotonic() + PROFILE_WAIT_SECONDS
    profile = await session.profile()
    while played(profile, game) <= played_before and time.monotonic() < deadline:
        await asyncio.sleep(PROFILE_POLL_SECONDS)
        profile = await session.profile()
    return profile


async def show_profile(endpoints: Endpoints, write: Write) -> int:
    channel = grpc.aio.insecure_channel(endpoints.profile)
    try:
        session = Session(channel, endpoints.home)
        for line in profile_lines(await session.profile()):
            write(line)
        return 0
    except grpc.aio.AioRpcError as error:
        write(f"Refused: {error.details()} ({reason_of(error) or error.code().name})")
        return 1
    finally:
        await channel.close()


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="cardroom", description="Play cardroom's card games in a terminal.")
    commands = root.add_subparsers(dest="command", required=True)
    game = commands.add_parser("play", help="queue for a game (or a private table) and play it")
    game.add_argument("game", choices=GAMES)
    game.add_argument("--seats", type=int, default=None, help="seats at the table (default 2; quatro 4)")
    game.add_argument("--ranked", action="store_true", help="a ranked match (moves the ladder at 2 seats)")
    game.add_argument("--options", default="{}", help='game and table options as JSON, e.g. \'{"holes": 3}\'')
    game.add_argument("--private", default="", metavar="CODE", help="join the private table with this code")
    game.add_argument("--host", action="store_true", help="make a private table, print its code, start on Enter")
    game.add_argument("--robots-after", type=float, default=None, metavar="S", help="still waiting after S seconds: play robots at a table of your own")
    commands.add_parser("profile", help="print your profile")
    return root


def request_of(arguments: argparse.Namespace) -> PlayRequest:
    try:
        options = json.loads(arguments.options)
    except ValueError as error:
        raise SystemExit(f"--options is not JSON: {error}") from None
    if not isinstance(options, dict):
        raise SystemExit("--options must be a JSON object")
    seats = arguments.seats or (4 if arguments.game == "quatro" else 2)
    return PlayRequest(arguments.game, seats, arguments.ranked, options, arguments.private, arguments.host, arguments.robots_after)


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    endpoints = Endpoints.from_environment()

    def write(text: str) -> None:
        print(text, flush=True)

    async def run() -> int:
        if arguments.command == "profile":
            return await show_profile(endpoints, write)
        return await play(request_of(arguments), endpoints, StdinLines(), write, clear_screen=sys.stdout.isatty())

    try:
        return asyncio.run(run())
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
