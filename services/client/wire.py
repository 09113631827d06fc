"""Protobuf messages as the plain dicts the renderers read.

``google.protobuf.Struct`` carries every number as a double; slots, seats and scores are whole
numbers, so they are turned back into ints here (``[1.0, 3.0]`` becomes ``[1, 3]``). Actions use the
table service's own conversion (``services.table.actions``), so the client and the server agree on
the engines' dict form.
"""

from __future__ import annotations

from typing import Any

from cardroom.table.v1 import table_pb2
from google.protobuf.json_format import MessageToDict

from services.table.actions import to_engine, to_wire
from shared.structs import whole_numbers as plain

Json = Any

__all__ = ["plain", "event_dict", "view_dict", "action_dict", "to_wire"]


def event_dict(event: table_pb2.TableEvent) -> dict[str, Json]:
    """An event as ``{"kind", "sequence", "actor", "private", **data}``."""
    data = plain(MessageToDict(event.data)) if event.HasField("data") else {}
    return {**data, "kind": event.kind, "sequence": event.sequence, "actor": event.actor, "private": event.private}


def view_dict(snapshot: table_pb2.Snapshot) -> dict[str, Json]:
    """The game's view of the seat, as the engine built it."""
    return plain(MessageToDict(snapshot.view)) if snapshot.HasField("view") else {}


def action_dict(action: table_pb2.Action) -> dict[str, Json]:
    """A wire action as the engine's dict (``{"type": "draw", "from": "stock"}``)."""
    return plain(to_engine(action))
