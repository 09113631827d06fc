"""The play loop: watch the table, redraw it after every change, offer the legal actions, act.

One loop serves every game. It keeps the seat's latest Snapshot (``GetView`` after each batch of
events, so the menu always holds the current legal actions), the reveal board (cards shown for a
moment) and a short log of what happened, and redraws the screen whenever one of them changes,
including when a shown card's time is up and it turns back. Input lines arrive independently of
the stream (a thread reads stdin, tests feed lines), so real-time games and out-of-turn actions
(Cambio's snaps) are always available. A number picks a menu entry; a game may add short commands.

What is drawn comes from the seat's own Snapshot and the events its stream delivered, nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import grpc
from cardroom.table.v1 import table_pb2

from shared.cancellation import within

from services.client.connection import TableConnection, reason_of
from services.client.families import Family, Json
from services.client.reveal import RevealBoard
from services.client.wire import action_dict, event_dict, to_wire, view_dict

log = logging.getLogger(__name__)

LOG_LINES = 8  # recent events kept under the table: enough to follow a robot's turn, short enough for a phone-sized terminal
NEW_DEAL_EVENTS = frozenset({"round_started", "round_dealt"})  # a new deal turns every shown card back
FINAL_SETTLE_SECONDS = 0.3  # the match's last events follow the view that shows it over within milliseconds
CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J"  # home, clear, and clear the scrollback so a turned card is gone


@dataclass
class Menu:
    """The numbered legal actions offered after one redraw."""

    entries: list[tuple[str, dict[str, Json]]]
    sequence: int
    attempt: int
    view: dict[str, Json] = field(default_factory=dict)

    @property
    def key(self) -> tuple[int, int, tuple[str, ...]]:
        return (self.sequence, self.attempt, tuple(label for label, _ in self.entries))


class Lines(Protocol):
    """Where the player's typed lines come from."""

    def offer(self, menu: Menu) -> None:
        """A new menu is on screen (a scripted player may answer it)."""
        ...

    async def next_line(self) -> str | None:
        """The next line typed, or ``None`` when input has ended."""
        ...


class StdinLines:
    """Lines from the terminal, read by a thread so that the stream never waits for the keyboard."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def read() -> None:
            for line in sys.stdin:
                loop.call_soon_threadsafe(self.queue.put_nowait, line.rstrip("\n"))
            loop.call_soon_threadsafe(self.queue.put_nowait, None)

        threading.Thread(target=read, name="stdin-reader", daemon=True).start()

    def offer(self, menu: Menu) -> None:
        return None

    async def next_line(self) -> str | None:
        return await self.queue.get()


class Quit(Exception):
    """The player typed quit (the table goes on; a robot or the turn clock plays the seat)."""


class PlayLoop:
    """Plays one match for one seat until it is over; returns the final Snapshot."""

    def __init__(
        self,
        connection: TableConnection,
        family: Family,
        lines: Lines,
        write: Callable[[str], Any],
        reveal: RevealBoard,
        *,
        clear_screen: bool = False,
    ) -> None:
        self.connection = connection
        self.family = family
        self.lines = lines
        self.write = write
        self.reveal = reveal
        self.clear_screen = clear_screen
        self.snapshot = table_pb2.Snapshot()
        self.view: dict[str, Json] = {}
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.menu = Menu([], 0, 0)
        self.refusals = 0

    @property
    def seat(self) -> int:
        return self.connection.seat

    @property
    def names(self) -> list[str]:
        return [s.display_name or ("Robot" if s.robot else "Player") for s in self.snapshot.table.seats]

    @property
    def finished(self) -> bool:
        return self.snapshot.table.status == table_pb2.TABLE_STATUS_FINISHED or self.view.get("phase") == "match_over"

    async def run(self) -> table_pb2.Snapshot:
        inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        tasks = [asyncio.create_task(self._pump(inbox)), asyncio.create_task(self._read(inbox))]
        try:
            await self._refresh()
            self.redraw()
            while not self.finished:
                try:
                    first = await within(self.reveal.seconds_to_next_change(), inbox.get())
                except TimeoutError:
                    self.redraw()  # a shown card's time is up: draw it face down again
                    continue
                batch = [first]
                while not inbox.empty():
                    batch.append(inbox.get_nowait())
                await self._handle(batch)
            await self._settle(inbox)
            self.redraw()
            return self.snapshot
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _settle(self, inbox: asyncio.Queue[tuple[str, Any]]) -> None:
        """The match is over: take in the last events (the round's and match's end) for the final screen."""
        while True:
            try:
                kind, item = await within(FINAL_SETTLE_SECONDS, inbox.get())
            except TimeoutError:
                return
            if kind == "message":
                self._take(item)

    async def _pump(self, inbox: asyncio.Queue[tuple[str, Any]]) -> None:
        try:
            async for message in self.connection.updates():
                inbox.put_nowait(("message", message))
        except Exception as error:  # noqa: BLE001 - handed to the loop, which raises it
            inbox.put_nowait(("error", error))

    async def _read(self, inbox: asyncio.Queue[tuple[str, Any]]) -> None:
        while True:
            line = await self.lines.next_line()
            inbox.put_nowait(("line", line))
            if line is None:
                return

    async def _handle(self, batch: list[tuple[str, Any]]) -> None:
        messages = [item for kind, item in batch if kind == "message"]
        for kind, item in batch:
            if kind == "error":
                raise item
        if messages:
            for message in messages:
                self._take(message)
            await self._refresh()
            self.redraw()
        for kind, item in batch:
            if kind == "line":
                await self._typed(item)

    def _take(self, message: table_pb2.WatchResponse) -> None:
        """Apply one stream message to what the seat knows: reveals, moved cards, the log."""
        if message.HasField("snapshot"):
            self._keep(message.snapshot)
            return
        event = event_dict(message.event)
        if event["kind"] in NEW_DEAL_EVENTS:
            self.reveal.clear()
        for place in self.family.moved(event):
            self.reveal.forget(place)
        for place, card in self.family.reveals(event, self.seat):
            self.reveal.show(place, card)
        line = self.family.narrate(event, self.seat, self.names)
        if line:
            self.log.append(line)

    async def _refresh(self) -> None:
        try:
            self._keep(await self.connection.view())
        except grpc.aio.AioRpcError as error:
            log.info("GetView failed (%s); keeping the last view", error.code().name)

    def _keep(self, snapshot: table_pb2.Snapshot) -> None:
        self.snapshot = snapshot
        self.view = view_dict(snapshot)

    def _legal(self) -> list[dict[str, Json]]:
        return [action_dict(action) for action in self.snapshot.legal_actions]

    def redraw(self) -> None:
        shown = self.reveal.visible()
        lines = [CLEAR_SCREEN + "cardroom" if self.clear_screen else "-" * 72]
        lines += self.family.render(self.view, self.seat, shown, self.names)
        if self.log:
            lines.append("")
            lines += [f"  {entry}" for entry in self.log]
        entries = [(self.family.describe(a, self.view, self.seat), a) for a in self._legal() if self.family.in_menu(a)]
        self.menu = Menu(entries, self.snapshot.sequence, self.refusals, self.view)
        lines.append("")
        if self.finished:
            lines.append("The match is over.")
        elif entries:
            lines += [f"  {number}. {label}" for number, (label, _) in enumerate(entries, start=1)]
            lines.append("Type a number" + (" or a command" if self.family.real_time else "") + " (quit to stop):")
        elif not self.family.real_time:
            lines.append("Waiting for the others...")
        self.write("\n".join(lines))
        if not self.finished:
            self.lines.offer(self.menu)

    async def _typed(self, line: str | None) -> None:
        if line is None:
            raise Quit("input ended")
        text = line.strip()
        if text in ("quit", "q", "exit"):
            raise Quit("quit")
        if not text:
            self.redraw()
            return
        action = self._chosen(text)
        if action is None:
            self.write(f"Not understood: {text!r}. Type a number from the menu" + (" or a command." if self.family.real_time else "."))
            return
        try:
            await self.connection.act(to_wire(action))
        except grpc.aio.AioRpcError as error:
            self.refusals += 1
            self.log.append(f"Refused: {error.details()} ({reason_of(error) or error.code().name})")
            await self._refresh()
            self.redraw()

    def _chosen(self, text: str) -> dict[str, Json] | None:
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(self.menu.entries):
                return self.menu.entries[number - 1][1]
            return None
        try:
            return self.family.command(text, self.view, self._legal())
        except (ValueError, KeyError, IndexError):
            return None


def outcome_line(view: dict[str, Json], seat: int) -> str:
    """"You won", "Draw" or "You lost", from the final view (Quatro's winners are teams)."""
    winners = view.get("winners") or []
    mine = view.get("team") if view.get("game") == "quatro" else seat
    totals = view.get("totals") or []
    scores = f" (totals {', '.join(str(t) for t in totals)})" if totals else ""
    if mine in winners:
        return ("Draw" if len(winners) > 1 else "You won!") + scores
    return "You lost." + scores
