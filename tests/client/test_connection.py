"""Backoff and idempotent retries of the client's table connection."""

from __future__ import annotations

import grpc
import pytest
from cardroom.matchmaking.v1 import matchmaking_pb2
from cardroom.table.v1 import table_pb2

from services.client.connection import Backoff, TableConnection


def test_backoff_doubles_from_a_fifth_of_a_second_to_five_seconds_and_resets() -> None:
    backoff = Backoff()
    assert [backoff.next() for _ in range(7)] == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    backoff.reset()
    assert backoff.next() == 0.2


def unavailable() -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "server restarting")


async def metadata() -> list[tuple[str, str]]:
    return []


async def no_sleep(_: float) -> None:
    return None


def connection() -> TableConnection:
    seated = matchmaking_pb2.Seated(table_id="t1", table_address="127.0.0.1:1", seat=0, seat_token="seat")
    return TableConnection(seated, metadata, None, sleep=no_sleep)


async def test_a_lost_act_is_retried_with_the_same_client_action_id(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connection()
    ids: list[str] = []

    async def flaky(action: table_pb2.Action, action_id: str) -> table_pb2.ActResponse:
        ids.append(action_id)
        if len(ids) < 3:
            raise unavailable()
        return table_pb2.ActResponse(sequence=9)

    monkeypatch.setattr(conn, "_act_once", flaky)
    answer = await conn.act(table_pb2.Action(call=table_pb2.CallAction()))
    await conn.close()
    assert answer.sequence == 9
    assert len(ids) == 3 and len(set(ids)) == 1


async def test_a_refusal_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connection()
    calls: list[str] = []

    async def refuse(action: table_pb2.Action, action_id: str) -> table_pb2.ActResponse:
        calls.append(action_id)
        raise grpc.aio.AioRpcError(grpc.StatusCode.FAILED_PRECONDITION, grpc.aio.Metadata(), grpc.aio.Metadata(), "not your turn")

    monkeypatch.setattr(conn, "_act_once", refuse)
    with pytest.raises(grpc.aio.AioRpcError):
        await conn.act(table_pb2.Action(call=table_pb2.CallAction()))
    await conn.close()
    assert len(calls) == 1


async def test_two_actions_get_different_client_action_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connection()
    ids: list[str] = []

    async def record(action: table_pb2.Action, action_id: str) -> table_pb2.ActResponse:
        ids.append(action_id)
        return table_pb2.ActResponse()

    monkeypatch.setattr(conn, "_act_once", record)
    await conn.act(table_pb2.Action(call=table_pb2.CallAction()))
    await conn.act(table_pb2.Action(call=table_pb2.CallAction()))
    await conn.close()
    assert ids[0] != ids[1]
