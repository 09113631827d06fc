"""Private tables and parties: short codes friends share, kept in the database.

* A private table is a lobby: its creator (the host) takes seat 0, friends join by the code, the
  host starts it and empty seats become robots. The table is opened with kind PRIVATE (never rated).
  Every watcher of the lobby is sent each change, then its Seated.
* A party is friends queueing together (Quatro partners, at most two).

Codes are 6 characters from an alphabet without look-alikes, unique among open lobbies (a unique
partial index enforces it) and among parties. Concurrent changes to one lobby or party are kept
apart by compare-and-set on a version column. Watchers are woken at once by changes made in this
process and poll the database every ``LOBBY_POLL_SECONDS`` for changes made anywhere else.

Limits: lobbies and parties do not expire; nobody leaves a lobby or party once in it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import uuid
from typing import AsyncIterator, Callable, Mapping, TypeVar

import grpc
from cardroom.common.v1 import common_pb2
from cardroom.matchmaking.v1 import matchmaking_pb2

from shared.auth import TokenIssuer
from shared.cancellation import to_completion, within
from shared.errors import ServiceError, invalid, not_found
from shared.games.base import Json

from services.matchmaking.catalog import check_table
from services.matchmaking.directory import ShardDirectory
from services.matchmaking.seating import Seater, seat_names, seated_message
from services.matchmaking.store import CodeTaken, LobbyRecord, MatchmakingStore, PartyRecord

log = logging.getLogger(__name__)

# No I, L, O, 0 or 1: a code read aloud or copied from a screen is typed without mistakes.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6  # 31^6 is about 887 million codes: collisions are rare and short to type
CODE_ATTEMPTS = 10  # fresh codes tried before giving up; two collisions in a row are already unlikely
CHANGE_ATTEMPTS = 20  # compare-and-set retries when others change the same lobby at the same moment
PARTY_LIMIT = 2  # Quatro partners: a party fills one partner pair
LOBBY_POLL_SECONDS = 2.0  # how late a watcher may learn of a change made by another process

T = TypeVar("T")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(code: str) -> str:
    """The code as stored (upper case, trimmed); refuses an empty one."""
    code = code.strip().upper()
    if not code:
        raise invalid("code", "code is required")
    return code


async def with_fresh_code(insert: Callable[[str], T]) -> T:
    """Run ``insert(code)`` in a thread with new codes until one is free."""
    for _ in range(CODE_ATTEMPTS):
        try:
            return await asyncio.to_thread(insert, new_code())
        except CodeTaken:
            continue
    raise ServiceError(grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE", "no free code was found; try again")


def table_full(what: str, code: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "TABLE_FULL", f"this {what} is full", {"code": code})


class Parties:
    def __init__(self, store: MatchmakingStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    async def create(self, player_id: str) -> PartyRecord:
        def insert(code: str) -> PartyRecord:
            return self.store.insert_party(PartyRecord(code=code, player_ids=json.dumps([player_id]), created_at=self.clock()))

        party = await with_fresh_code(insert)
        log.info("party created", extra={"code": party.code})
        return party

    async def join(self, code: str, player_id: str) -> PartyRecord:
        code = normal_code(code)
        for _ in range(CHANGE_ATTEMPTS):
            party = await self._party(code)
            members = party.players()
            if player_id in members:
                return party
            if len(members) >= PARTY_LIMIT:
                raise table_full("party", code)
            if await asyncio.to_thread(self.store.update_party, code, party.version, [*members, player_id]):
                return await self._party(code)
        raise _busy()

    async def members_for(self, code: str, player_id: str) -> list[str]:
        """The party's members, for a member queueing with it."""
        party = await self._party(normal_code(code))
        members = party.players()
        if player_id not in members:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN", "join the party before queueing with it")
        return members

    async def _party(self, code: str) -> PartyRecord:
        party = await asyncio.to_thread(self.store.party, code)
        if party is None:
            raise not_found("party", "no party has this code")
        return party


def party_message(party: PartyRecord) -> matchmaking_pb2.Party:
    return matchmaking_pb2.Party(code=party.code, player_ids=party.players())


class PrivateTables:
    def __init__(self, store: MatchmakingStore, seater: Seater, directory: ShardDirectory, issuer: TokenIssuer) -> None:
        self.store = store
        self.seater = seater
        self.directory = directory
        self.issuer = issuer
        self._signals: dict[str, asyncio.Event] = {}

    # -- changes -----------------------------------------------------------------------------------

    async def create(self, host_id: str, game: str, options: Mapping[str, Json], seats: int) -> LobbyRecord:
        spec = check_table(game, options, seats)

        def insert(code: str) -> LobbyRecord:
            return self.store.insert_lobby(
                LobbyRecord(
                    lobby_id=uuid.uuid4().hex,
                    code=code,
                    game=spec.game,
                    options=spec.options_key,
                    seats=spec.seats,
                    host_player_id=host_id,
                    player_ids=json.dumps([host_id] + [""] * (spec.seats - 1)),
                    created_at=self.directory.clock(),
                )
            )

        lobby = await with_fresh_code(insert)
        log.info("private table created", extra={"code": lobby.code, "game": lobby.game, "seats": lobby.seats})
        return lobby

    async def join(self, code: str, player_id: str) -> LobbyRecord:
        code = normal_code(code)
        for _ in range(CHANGE_ATTEMPTS):
            lobby = await self._open(code)
            players = lobby.players()
            if player_id in players:
                return lobby
            if "" not in players:
                raise table_full("private table", code)
            players[players.index("")] = player_id
            if await self._change(lobby, player_ids=json.dumps(players)):
                return await self._reload(lobby)
        raise _busy()

    async def start(self, code: str, player_id: str) -> matchmaking_pb2.Seated:
        """Open the table (empty seats are robots); every watcher is seated; returns the host's seat."""
        code = normal_code(code)
        for _ in range(CHANGE_ATTEMPTS):
            lobby = await self._latest(code)
            if lobby.host_player_id != player_id:
                raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN", "only the host starts the table")
            if lobby.started:
                raise _started()
            if await self._change(lobby, started=True):
                # Once marked started the table must open (or the mark be undone), even if the
                # host's call is cancelled meanwhile: else the lobby stays started with no table.
                return await to_completion(self._open_table(lobby, player_id))
        raise _busy()

    async def _open_table(self, lobby: LobbyRecord, host_id: str) -> matchmaking_pb2.Seated:
        """Open the table of a lobby just marked started, or undo the mark."""
        lobby = await self._reload(lobby)
        seats = [player or None for player in lobby.players()]
        try:
            opened = await self.seater.open_table(
                lobby.game, json.loads(lobby.options), seats, common_pb2.MATCH_KIND_PRIVATE, "private"
            )
        except Exception as error:  # noqa: BLE001 - the lobby stays open to try again
            log.exception("could not open a private table", extra={"code": lobby.code})
            await self._change(lobby, started=False)
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE", "the table could not be opened now; start again in a moment"
            ) from error
        await self._change(lobby, table_id=opened.table_id)
        log.info("private table started", extra={"code": lobby.code, "table_id": opened.table_id})
        return opened.seated[host_id]

    async def _change(self, lobby: LobbyRecord, **values: object) -> bool:
        changed = await asyncio.to_thread(self.store.update_lobby, lobby.lobby_id, lobby.version, **values)
        if changed:
            self._signal(lobby.lobby_id)
        return changed

    def _signal(self, lobby_id: str) -> None:
        event = self._signals.pop(lobby_id, None)
        if event is not None:
            event.set()

    # -- reading -----------------------------------------------------------------------------------

    async def watch(self, code: str, player_id: str) -> AsyncIterator[matchmaking_pb2.WatchPrivateTableResponse]:
        """The lobby now and at every change, then the caller's Seated once the table is open."""
        lobby = await self._latest(normal_code(code))
        if player_id not in lobby.players():
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN", "join the private table before watching it")
        sent_version = 0
        while True:
            signal = self._signals.setdefault(lobby.lobby_id, asyncio.Event())
            if lobby.version != sent_version:
                yield matchmaking_pb2.WatchPrivateTableResponse(lobby=lobby_message(lobby))
                sent_version = lobby.version
            if lobby.started and lobby.table_id:
                yield matchmaking_pb2.WatchPrivateTableResponse(seated=await self._seated(lobby, player_id))
                return
            try:
                await within(LOBBY_POLL_SECONDS, signal.wait())
            except TimeoutError:
                pass
            lobby = await self._reload(lobby)

    async def _seated(self, lobby: LobbyRecord, player_id: str) -> matchmaking_pb2.Seated:
        seating = await asyncio.to_thread(self.store.seating, lobby.table_id, player_id)
        if seating is None:
            raise not_found("seat", "no seat of yours at this table")
        address = await self.directory.locate(lobby.table_id)
        return seated_message(seating, address, self.issuer.seat(player_id, seating.table_id, seating.seat).token)

    async def _open(self, code: str) -> LobbyRecord:
        """The open lobby with ``code``: NOT_FOUND if none ever had it, ILLEGAL if it has started."""
        lobby = await self._latest(code)
        if lobby.started:
            raise _started()
        return lobby

    async def _latest(self, code: str) -> LobbyRecord:
        lobby = await asyncio.to_thread(self.store.latest_lobby, code)
        if lobby is None:
            raise not_found("private_table", "no private table has this code")
        return lobby

    async def _reload(self, lobby: LobbyRecord) -> LobbyRecord:
        fresh = await asyncio.to_thread(self.store.lobby, lobby.lobby_id)
        if fresh is None:
            raise not_found("private_table", "the private table is gone")
        return fresh


def lobby_message(lobby: LobbyRecord) -> matchmaking_pb2.PrivateTable:
    players = lobby.players()
    names = seat_names([player or None for player in players])
    message = matchmaking_pb2.PrivateTable(
        code=lobby.code,
        game=lobby.game,
        seats=lobby.seats,
        host_player_id=lobby.host_player_id,
        player_ids=players,
        display_names=[name if player else "" for player, name in zip(players, names)],
        started=lobby.started,
    )
    message.options.update(json.loads(lobby.options))
    return message


def _started() -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL", "this private table has already started")


def _busy() -> ServiceError:
    return ServiceError(grpc.StatusCode.ABORTED, "STALE", "others changed this at the same moment; try again")

