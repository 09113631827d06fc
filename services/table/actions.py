"""The wire's ``Action`` message and the engines' action dicts, both ways.

The dict form is the conformance format's (``{"type": "draw", "from": "stock"}``), which is what
engines take and what the log stores. Conversion checks only the wire's shape; the engine decides
legality.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from cardroom.table.v1 import table_pb2

from shared.errors import invalid
from shared.games.base import Json

_DRAW_SOURCES = {table_pb2.DRAW_SOURCE_STOCK: "stock", table_pb2.DRAW_SOURCE_DISCARD: "discard"}
_DIRECTIONS = {table_pb2.DIRECTION_LEFT: "left", table_pb2.DIRECTION_RIGHT: "right"}
_VARIATIONS = {
    table_pb2.VARIATION_HOT_FIVES: "hot_fives",
    table_pb2.VARIATION_SKIP_SIXES: "skip_sixes",
    table_pb2.VARIATION_HIGH_SEVENS: "high_sevens",
    table_pb2.VARIATION_REVERSE_EIGHTS: "reverse_eights",
}


def _target(target: table_pb2.CardTarget) -> list[int]:
    return [target.seat, target.slot]


def _draw(m: Any) -> dict[str, Json]:
    if m.source not in _DRAW_SOURCES:
        raise invalid("action.draw.source", "draw needs a source: stock or discard")
    return {"type": "draw", "from": _DRAW_SOURCES[m.source]}


def _needs_target(name: str) -> Callable[[Any], dict[str, Json]]:
    def convert(m: Any) -> dict[str, Json]:
        if not m.HasField("target"):
            raise invalid(f"action.{name}.target", f"{name} needs a target")
        return {"type": name, "target": _target(m.target)}

    return convert


def _setup(m: Any) -> dict[str, Json]:
    if m.direction not in _DIRECTIONS:
        raise invalid("action.setup.direction", "setup needs a direction: left or right")
    if any(v not in _VARIATIONS for v in m.variations):
        raise invalid("action.setup.variations", "unknown variation")
    return {"type": "setup", "direction": _DIRECTIONS[m.direction], "variations": [_VARIATIONS[v] for v in m.variations]}


def _play(m: Any) -> dict[str, Json]:
    action: dict[str, Json] = {"type": "play", "hand": list(m.hand), "up": list(m.up), "down": list(m.down)}
    if m.__getattribute__("as"):
        action["as"] = m.__getattribute__("as")
    return action


def _contra(m: Any) -> dict[str, Json]:
    return {"type": "contra", "team": m.team} if m.HasField("team") else {"type": "contra"}


_TO_ENGINE: dict[str, Callable[[Any], dict[str, Json]]] = {
    "draw": _draw,
    "replace": lambda m: {"type": "replace", "slot": m.slot},
    "discard": lambda m: {"type": "discard"},
    "power": lambda m: {"type": "power", "targets": [_target(t) for t in m.targets]},
    "swap": lambda m: {"type": "swap", "targets": [_target(t) for t in m.targets]},
    "pass": lambda m: {"type": "pass"},
    "match": _needs_target("match"),
    "burn": _needs_target("burn"),
    "snap": _needs_target("snap"),
    "give": lambda m: {"type": "give", "slot": m.slot},
    "call": lambda m: {"type": "call"},
    "move_finish_line": lambda m: {"type": "move_finish_line", "to": m.to},
    "choose_signal": lambda m: {"type": "choose_signal", "emoji": m.emoji},
    "ready": lambda m: {"type": "ready"},
    "exchange": lambda m: {"type": "exchange", "hand_slot": m.hand_slot, "center_slot": m.center_slot, "expect": m.expect},
    "take_floor": lambda m: {"type": "take_floor"},
    "show": lambda m: {"type": "show", "emoji": m.emoji},
    "release_floor": lambda m: {"type": "release_floor"},
    "quatro": lambda m: {"type": "quatro", "confirm": m.confirm},
    "contra": _contra,
    "propose_reshuffle": lambda m: {"type": "propose_reshuffle"},
    "vote": lambda m: {"type": "vote", "accept": m.accept},
    "start_next_round": lambda m: {"type": "start_next_round"},
    "setup": _setup,
    "play": _play,
    "flip": lambda m: {"type": "flip", "slot": m.slot},
    "pick_up": lambda m: {"type": "pick_up"},
}


def to_engine(action: table_pb2.Action) -> dict[str, Json]:
    """The engine's dict for a wire action. Raises ``ServiceError`` for an empty action."""
    which = action.WhichOneof("action")
    if which is None:
        raise invalid("action", "the action is empty")
    return _TO_ENGINE[which](getattr(action, which))


def _target_message(pair: Json) -> table_pb2.CardTarget:
    return table_pb2.CardTarget(seat=int(pair[0]), slot=int(pair[1]))


def to_wire(action: Mapping[str, Json]) -> table_pb2.Action:
    """The wire message for an engine action (legal actions shown to clients)."""
    kind = action["type"]
    message = table_pb2.Action()
    if kind == "draw":
        source = {v: k for k, v in _DRAW_SOURCES.items()}[action["from"]]
        message.draw.source = source
    elif kind in ("match", "burn", "snap"):
        getattr(message, kind).target.CopyFrom(_target_message(action["target"]))
    elif kind in ("power", "swap"):
        getattr(message, kind).targets.extend(_target_message(t) for t in action.get("targets", []))
    elif kind == "setup":
        message.setup.direction = {v: k for k, v in _DIRECTIONS.items()}[action["direction"]]
        message.setup.variations.extend({v: k for k, v in _VARIATIONS.items()}[v] for v in action.get("variations", []))
    elif kind == "play":
        message.play.hand.extend(action.get("hand", []))
        message.play.up.extend(action.get("up", []))
        message.play.down.extend(action.get("down", []))
        if action.get("as"):
            setattr(message.play, "as", action["as"])
    elif kind == "contra" and "team" in action:
        message.contra.team = int(action["team"])
    else:
        field = getattr(message, kind)
        field.SetInParent()
        for key, value in action.items():
            if key != "type":
                setattr(field, key, value)
    return message
