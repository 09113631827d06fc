"""Opening a table for players that matchmaking has brought together, and handing out their seats.

The table is placed on a shard (``directory.py``), opened there with service credentials
(``TableService/CreateTable``), and every human seat is stored (``SeatingRecord``) so that the
player can locate it again later. Robots are ``SeatAssignment(robot=True)``. Display names are
neutral ("Player 1", "Robot 1"): profile's names are the client's to show.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from dataclasses import dataclass
from typing import Sequence

from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2
from cardroom.table.v1 import table_pb2

from shared.auth import TokenIssuer
from shared.errors import not_found
from shared.games.base import Json

from services.matchmaking import metrics
from services.matchmaking.clients import TableClients
from services.matchmaking.directory import ShardDirectory
from services.matchmaking.store import MatchmakingStore, SeatingRecord

log = logging.getLogger(__name__)

# A returning client's latest unfinished seats checked with their table servers; older ones are
# almost always finished matches nobody reported to us, and each check is a call.
LOCATE_CANDIDATES = 5


@dataclass(frozen=True)
class OpenedTable:
    """A table just opened: its id, address and each human's Seated, by player id."""

    table_id: str
    address: str
    seated: dict[str, matchmaking_pb2.Seated]


def seat_names(seats: Sequence[str | None]) -> list[str]:
    """Neutral names in seat order: "Player 1", "Player 2", ... and "Robot 1", ..."""
    names: list[str] = []
    players = robots = 0
    for player in seats:
        if player is None:
            robots += 1
            names.append(f"Robot {robots}")
        else:
            players += 1
            names.append(f"Player {players}")
    return names


class Seater:
    def __init__(self, store: MatchmakingStore, directory: ShardDirectory, tables: TableClients, issuer: TokenIssuer) -> None:
        self.store = store
        self.directory = directory
        self.tables = tables
        self.issuer = issuer

    async def open_table(
        self,
        game: str,
        options: dict[str, Json],
        seats: Sequence[str | None],
        kind: common_pb2.MatchKind.ValueType,
        mode: str,
    ) -> OpenedTable:
        """Open a table with ``seats`` (player ids; ``None`` for robots). Raises ``grpc.RpcError`` on failure."""
        table_id, match_id = uuid.uuid4().hex, uuid.uuid4().hex
        placement = await self.directory.place()
        request = table_pb2.CreateTableRequest(
            table_id=table_id,
            game=game,
            seats=[
                table_pb2.SeatAssignment(player_id=player or "", display_name=name, robot=player is None)
                for player, name in zip(seats, seat_names(seats))
            ],
            kind=kind,
            match_id=match_id,
        )
        request.options.update(json.loads(json.dumps(options)))
        response = await self.tables.create(placement.address, request)
        tokens = {token.seat: token.token for token in response.seat_tokens}
        seatings = [
            SeatingRecord(table_id=table_id, player_id=player, seat=seat, match_id=match_id, game=game, created_at=self.directory.clock())
            for seat, player in enumerate(seats)
            if player is not None
        ]
        await asyncio.to_thread(self.store.record_table, seatings, self.directory.placement_record(table_id, placement))
        seated = {
            s.player_id: seated_message(s, placement.address, tokens.get(s.seat) or self.issuer.seat(s.player_id, table_id, s.seat).token)
            for s in seatings
        }
        metrics.PLAYERS_SEATED.labels(game, mode).inc(len(seated))
        log.info("table opened", extra={"table_id": table_id, "game": game, "mode": mode, "humans": len(seated)})
        return OpenedTable(table_id, placement.address, seated)

    async def locate(self, player_id: str, table_id: str) -> matchmaking_pb2.Seated:
        """The caller's seat at ``table_id`` (or at its latest unfinished table), where it is hosted now."""
        if table_id:
            seating = await asyncio.to_thread(self.store.seating, table_id, player_id)
            if seating is None:
                raise not_found("seat", "you have no seat at this table")
            return self._reseat(seating, await self.directory.locate(table_id))
        for seating in await asyncio.to_thread(self.store.unfinished_seatings, player_id, LOCATE_CANDIDATES):
            address = await self.directory.locate(seating.table_id)
            status = await self.tables.status(address, seating.table_id)
            if status in (table_pb2.TABLE_STATUS_FINISHED, table_pb2.TABLE_STATUS_UNSPECIFIED):
                await asyncio.to_thread(self.store.mark_finished, [seating.table_id])
                continue
            return self._reseat(seating, address)
        raise not_found("seat", "you have no unfinished table")

    def _reseat(self, seating: SeatingRecord, address: str) -> matchmaking_pb2.Seated:
        return seated_message(seating, address, self.issuer.seat(seating.player_id, seating.table_id, seating.seat).token)


def seated_message(seating: SeatingRecord, address: str, seat_token: str) -> matchmaking_pb2.Seated:
    return matchmaking_pb2.Seated(
        table_id=seating.table_id,
        table_address=address,
        seat=seating.seat,
        seat_token=seat_token,
        match_id=seating.match_id,
        game=seating.game,
    )
