"""Quatro (seed 001, rules/quatro.md): teams of two, real time, signals, first team to 5 points.

The engine instance is ``QUATRO`` (see ``shared.games.registry``); ``SIGNALS`` is the protocol's
list of the 24 emojis (QU-3). Modules: ``rules`` (deck, deal, quartets), ``state`` (the frozen
table), ``actions`` (reading client input), ``flow`` (round transitions and the clock),
``engine`` (the rules of each action and the ``Game`` interface), ``views`` (what each seat sees).
"""

from shared.games.quatro.engine import QUATRO, Quatro
from shared.games.quatro.rules import SIGNALS
from shared.games.quatro.state import QuatroState

__all__ = ["QUATRO", "SIGNALS", "Quatro", "QuatroState"]
