"""Every log line written while a whole game is played over gRPC is checked for cards: logs go to
operators and collectors, never to a seat, so they must name no card at all."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import pytest

from shared.games.cards import is_card
from shared.logs import JsonFormatter

_WORDS = re.compile(r"[A-Za-z0-9]+")


class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter("test"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture(autouse=True)
def logs_name_no_card() -> Iterator[None]:
    recorder = _Recorder()
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(recorder)
    root.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        root.removeHandler(recorder)
        root.setLevel(previous_level)
    leaks = [line for line in recorder.lines if any(is_card(word) for word in _WORDS.findall(line))]
    assert not leaks, f"log lines naming a card: {leaks[:3]}"
