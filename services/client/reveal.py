"""The reveal timer: a card the seat is shown stays on screen for a few seconds, then turns back.

Seed 000, "Controls": a card you are shown appears for a few seconds and then turns back over;
nothing keeps it on the screen and there is no way to look again. The board holds each shown card
with the moment it must go, answers only what is still due to be visible, and forgets a card at
once when it moves (a swap or a replacement), so a stale face is never drawn on a new card.
The clock is injected so that tests can step time.
"""

from __future__ import annotations

import time
from typing import Callable, Hashable

DEFAULT_REVEAL_SECONDS = 3.0  # "a few seconds" (seed 000); the player's preference overrides it


class RevealBoard:
    """Cards shown to the seat, by place (``(seat, slot)`` or any key a renderer chooses)."""

    def __init__(self, seconds: float = DEFAULT_REVEAL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self._shown: dict[Hashable, tuple[str, float]] = {}

    def show(self, place: Hashable, card: str) -> None:
        """Show ``card`` at ``place`` from now for ``seconds``."""
        self._shown[place] = (card, self.clock() + self.seconds)

    def forget(self, place: Hashable) -> None:
        """The card at ``place`` moved: stop showing it now."""
        self._shown.pop(place, None)

    def clear(self) -> None:
        """A new deal: nothing shown any more."""
        self._shown.clear()

    def visible(self) -> dict[Hashable, str]:
        """The cards still face up now; expired ones are dropped for good."""
        now = self.clock()
        self._shown = {place: shown for place, shown in self._shown.items() if shown[1] > now}
        return {place: card for place, (card, _) in self._shown.items()}

    def seconds_to_next_change(self) -> float | None:
        """How long until the next card turns back (``None``: nothing is shown)."""
        if not self._shown:
            return None
        return max(0.0, min(until for _, until in self._shown.values()) - self.clock())
