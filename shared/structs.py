"""``google.protobuf.Struct``, the wire's form of views, event data and options, both ways.

A Struct carries every number as a double; the games' numbers (slots, seats, holes, scores) are
whole, so reading one back turns whole doubles into ints.
"""

from __future__ import annotations

from typing import Any, Mapping

from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

Json = Any


def whole_numbers(value: Json) -> Json:
    """``value`` with every whole float made an int, recursively."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


def to_struct(value: Mapping[str, Json]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(value)
    return message


def from_struct(message: struct_pb2.Struct) -> dict[str, Json]:
    return whole_numbers(MessageToDict(message))
