"""Seeded randomness for engines: the same seed and labels always give the same result.

An engine never holds a live generator in its state: each draw of chance is derived from the
table's seed and labels naming the moment (``"deal", round``), so a state can be copied, stored
and replayed without carrying generator internals.
"""

from __future__ import annotations

import random
from typing import Sequence, TypeVar

T = TypeVar("T")


def generator(seed: int, *labels: object) -> random.Random:
    """A generator for one named moment of one table. String seeds are hashed with SHA-512 by
    ``random.Random``, so this is stable across processes and Python runs."""
    return random.Random(":".join([str(seed), *map(str, labels)]))


def shuffled(items: Sequence[T], seed: int, *labels: object) -> list[T]:
    result = list(items)
    generator(seed, *labels).shuffle(result)
    return result


def choice(items: Sequence[T], seed: int, *labels: object) -> T:
    return generator(seed, *labels).choice(list(items))
