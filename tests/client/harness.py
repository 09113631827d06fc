"""The whole backend in-process on real sockets, and a scripted player for the client's play loop."""

from __future__ import annotations

import asyncio
import random
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Callable

from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

from services.client.cli import Endpoints
from services.client.play import Menu
from services.matchmaking.app import create_server as create_matchmaking
from services.profile.app import create_server as create_profile
from services.rating.app import create_server as create_rating
from services.table.app import create_server as create_table
from tests.support.servers import settings_for

ROBOT_WAIT_SECONDS = 0.5  # the brief's casual wait: robots fill the empty seat at once in tests


def database(tmp_path: Path, service: str) -> str:
    return f"sqlite:///{tmp_path / (service + '.sqlite3')}"


@asynccontextmanager
async def backend(tmp_path: Path) -> AsyncIterator[Endpoints]:
    """Rating, table, profile and matchmaking servers, each on its own SQLite file; the client's endpoints."""
    rating = await create_rating(settings_for("rating", database(tmp_path, "rating")))
    rating_address = f"127.0.0.1:{await rating.start('127.0.0.1:0')}"
    table, _ = await create_table(settings_for("table", database(tmp_path, "table")), rating_address, shard="client-test")
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
