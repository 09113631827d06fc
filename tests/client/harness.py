"""The whole backend in-process on real sockets, and a scripted player for the client's play loop."""

from __future__ import annotations

import asyncio
import random
import re
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from cardroom.table.v1 import table_pb2
from google.protobuf.json_format import MessageToDict

from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

from services.client.cli import Endpoints
from services.client.connection import TableConnection
from services.client.play import Menu
from services.client.wire import event_dict
from services.matchmaking.app import create_server as create_matchmaking
from services.profile.app import create_server as create_profile
from services.rating.app import create_server as create_rating
from services.table.app import create_server as create_table
from tests.support.servers import settings_for

ROBOT_WAIT_SECONDS = 0.5  # the brief's casual wait: robots fill the empty seat at once in tests


def database(tmp_path: Path, service: str) -> str:
    return f"sqlite:///{tmp_path / (service + '.sqlite3')}"


@asynccontextmanager
async def backend(tmp_path: Path, clock_speed: float = 1.0) -> AsyncIterator[Endpoints]:
    """Rating, table, profile and matchmaking servers, each on its own SQLite file; the client's endpoints.
    ``clock_speed`` > 1 runs the table's time faster than real time (Quatro's clocks in seconds)."""
    rating = await create_rating(settings_for("rating", database(tmp_path, "rating")))
    rating_address = f"127.0.0.1:{await rating.start('127.0.0.1:0')}"
    table, _ = await create_table(
        settings_for("table", database(tmp_path, "table")), rating_address, shard="client-test", clock_speed=clock_speed
    )
    table_address = f"127.0.0.1:{await table.start('127.0.0.1:0')}"
    profile = await create_profile(
        settings_for("profile", database(tmp_path, "profile")), rating_address, password_hasher=PasswordHasher.from_parameters(CHEAPEST)
    )
    profile_address = f"127.0.0.1:{await profile.start('127.0.0.1:0')}"
    matchmaking = await create_matchmaking(
        settings_for("matchmaking", database(tmp_path, "matchmaking")),
        table_address=table_address,
        rating_address=rating_address,
        robot_wait_seconds=ROBOT_WAIT_SECONDS,
        rng=random.Random(5),
    )
    matchmaking_address = f"127.0.0.1:{await matchmaking.start('127.0.0.1:0')}"
    try:
        yield Endpoints(profile_address, matchmaking_address, tmp_path / "home")
    finally:
        for app in (matchmaking, profile, table, rating):
            await app.stop(0)


class ScriptedLines:
    """A player who answers every new menu with ``choose(menu)`` (``None``: no answer)."""

    def __init__(self, choose: Callable[[Menu], str | None], before: list[str] | None = None) -> None:
        self.choose = choose
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        for line in before or []:
            self.queue.put_nowait(line)
        self.answered: set[tuple[int, int, tuple[str, ...]]] = set()
        self.menus: list[Menu] = []

    def offer(self, menu: Menu) -> None:
        if menu.key in self.answered:
            return
        self.answered.add(menu.key)
        self.menus.append(menu)
        line = self.choose(menu)
        if line is not None:
            self.queue.put_nowait(line)

    async def next_line(self) -> str | None:
        return await self.queue.get()


def first_choice(menu: Menu) -> str | None:
    """Always the first legal action."""
    return "1" if menu.entries else None


CARD = re.compile(r"(?<![0-9A-Z])(?:10|[2-9AJQK])[SHDC](?![a-z])")  # a suited card as the games write it


def cards_in(value: Any) -> set[str]:
    """The suited cards named anywhere in ``value`` (Cabo's numbered cards cannot be told from numbers)."""
    return set(CARD.findall(str(value)))


class Sight:
    """Everything one seat's connection received, in the order it arrived: the suited cards named
    in its Snapshots and stream events, and its events as dicts. A client that prints a card not in
    here at that moment printed a card its seat was never shown."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.cards: set[str] = set()
        self.events: list[dict[str, Any]] = []

    def take_snapshot(self, snapshot: table_pb2.Snapshot) -> None:
        self.cards |= cards_in(MessageToDict(snapshot))

    def take_message(self, message: table_pb2.WatchResponse) -> None:
        if message.HasField("snapshot"):
            self.take_snapshot(message.snapshot)
            return
        event = event_dict(message.event)
        self.events.append(event)
        self.cards |= cards_in(event)


def watched(sight: Sight) -> Callable[..., TableConnection]:
    """A ``TableConnection`` factory whose connections record what they receive into ``sight``
    (patch it over ``services.client.cli.TableConnection``)."""

    class WatchedConnection(TableConnection):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            sight.seat = self.seat

        async def updates(self) -> AsyncIterator[table_pb2.WatchResponse]:
            async for message in super().updates():
                sight.take_message(message)
                yield message

        async def view(self) -> table_pb2.Snapshot:
            snapshot = await super().view()
            sight.take_snapshot(snapshot)
            return snapshot

    return WatchedConnection
