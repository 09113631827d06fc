"""Reading a Quatro action sent by a client: its shape, checked before any rule is.

Purpose: turn an untrusted mapping into a ``Move`` (a kind and typed fields) or refuse it with
``unknown_action``, so that nothing a client sends can reach the rules with a wrong type.
Limits: only the shape and the protocol's fixed values (the 24 emojis) are checked here; whether
a move is allowed now (phase, slots, cooldowns) is the engine's business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from shared.games.base import UNKNOWN_ACTION, Json, Rejection
from shared.games.quatro.rules import SIGNALS

CHOOSE_SIGNAL = "choose_signal"
READY = "ready"
EXCHANGE = "exchange"
TAKE_FLOOR = "take_floor"
SHOW = "show"
RELEASE_FLOOR = "release_floor"
QUATRO = "quatro"
CONTRA = "contra"
PROPOSE_RESHUFFLE = "propose_reshuffle"
VOTE = "vote"
START_NEXT_ROUND = "start_next_round"
DISCONNECT = "disconnect"
RECONNECT = "reconnect"

# Per action type: field name -> (expected type, required). FORMAT.md "Actions", quatro.
_SHAPES: dict[str, dict[str, tuple[type, bool]]] = {
    CHOOSE_SIGNAL: {"emoji": (str, True)},
    READY: {},
    EXCHANGE: {"hand_slot": (int, True), "center_slot": (int, True), "expect": (str, True)},
    TAKE_FLOOR: {},
    SHOW: {"emoji": (str, True)},
    RELEASE_FLOOR: {},
    QUATRO: {"confirm": (bool, False)},
    CONTRA: {"team": (int, False)},
    PROPOSE_RESHUFFLE: {},
    VOTE: {"accept": (bool, True)},
    START_NEXT_ROUND: {},
    DISCONNECT: {},
    RECONNECT: {},
}
_EMOJI_FIELDS = ("emoji",)


@dataclass(frozen=True)
class Move:
    """A well-formed action: its type and its fields (optional ones absent when not sent)."""

    kind: str
    fields: Mapping[str, Json] = field(default_factory=dict)


def _has_type(value: Json, expected: type) -> bool:
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


def parse(action: object) -> Move:
    """The ``Move`` an action asks for. Raises ``Rejection(UNKNOWN_ACTION)`` for anything else."""
    if not isinstance(action, Mapping) or not all(isinstance(key, str) for key in action):
        raise Rejection(UNKNOWN_ACTION, "an action is an object with a 'type'")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _SHAPES:
        raise Rejection(UNKNOWN_ACTION, "unknown action type")
    shape = _SHAPES[kind]
    extra = set(action) - set(shape) - {"type"}
    if extra:
        raise Rejection(UNKNOWN_ACTION, f"{kind} was sent a field it does not take")
    fields: dict[str, Json] = {}
    for name, (expected, required) in shape.items():
        value = action.get(name)
        if value is None:
            if required:
                raise Rejection(UNKNOWN_ACTION, f"{kind} needs {name!r}")
            continue
        if not _has_type(value, expected):
            raise Rejection(UNKNOWN_ACTION, f"{kind}: {name!r} must be a {expected.__name__}")
        if name in _EMOJI_FIELDS and value not in SIGNALS:
            raise Rejection(UNKNOWN_ACTION, f"{kind}: the emoji must be one of the {len(SIGNALS)} signals (QU-3)")
        fields[name] = value
    return Move(kind, fields)
