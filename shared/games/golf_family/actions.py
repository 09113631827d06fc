"""Parsing of the family's action dicts (conformance FORMAT.md, "Actions") into typed values.

Anything a client can send is checked here for shape only: an unknown type, a missing or extra
field, or a value of the wrong type raises ``Rejection(unknown_action)``. Whether the action is
legal now, and whether its slots exist, is the engine's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, TypeVar

from shared.games.base import UNKNOWN_ACTION, Json, Rejection
from shared.games.golf_family.rules import ACTION_FIELDS
from shared.games.golf_family.state import Target

SOURCES = ("stock", "discard")
MAX_TARGETS = 2  # a power names one card to look at or two to swap (FORMAT.md)


@dataclass(frozen=True)
class Parsed:
    """An action of a known shape: its type and its typed fields (absent ones are ``None``)."""

    type: str
    source: str | None = None
    slot: int | None = None
    target: Target | None = None
    targets: tuple[Target, ...] = ()
    to: int | None = None

    def slot_value(self) -> int:
        return _present(self.slot)

    def target_value(self) -> Target:
        return _present(self.target)

    def to_value(self) -> int:
        return _present(self.to)


T = TypeVar("T")


def _present(value: T | None) -> T:
    """A field ``parse`` guarantees for this action type; its absence is a malformed action."""
    if value is None:
        raise Rejection(UNKNOWN_ACTION, "a field of this action is missing")
    return value


def parse(action: Json) -> Parsed:
    if not isinstance(action, Mapping):
        raise Rejection(UNKNOWN_ACTION, "an action is an object with a type")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        raise Rejection(UNKNOWN_ACTION, "unknown action type")
    fields = set(action) - {"type"}
    if fields != ACTION_FIELDS[kind]:
        raise Rejection(UNKNOWN_ACTION, f"{kind} takes exactly: {', '.join(sorted(ACTION_FIELDS[kind])) or 'nothing'}")
    parsed = Parsed(type=kind)
    if "from" in fields:
        source = action["from"]
        if not isinstance(source, str) or source not in SOURCES:
            raise Rejection(UNKNOWN_ACTION, "draw from stock or discard")
        parsed = Parsed(type=kind, source=source)
    if "slot" in fields:
        parsed = Parsed(type=kind, slot=_integer(action["slot"], "slot"))
    if "to" in fields:
        parsed = Parsed(type=kind, to=_integer(action["to"], "to"))
    if "target" in fields:
        parsed = Parsed(type=kind, target=_target(action["target"]))
    if "targets" in fields:
        parsed = Parsed(type=kind, targets=_targets(action["targets"]))
    return parsed


def _integer(value: Json, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejection(UNKNOWN_ACTION, f"{name} must be an integer")
    return value


def _target(value: Json) -> Target:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise Rejection(UNKNOWN_ACTION, "a target is [seat, slot]")
    return (_integer(value[0], "seat"), _integer(value[1], "slot"))


def _targets(value: Json) -> tuple[Target, ...]:
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= MAX_TARGETS:
        raise Rejection(UNKNOWN_ACTION, "targets is a list of one or two [seat, slot]")
    return tuple(_target(item) for item in value)
