"""The golf family: ``four_down``, ``golf``, ``cambio`` and ``cabo``, one engine and four rule tables.

``engine.GolfFamilyEngine`` plays any game described by a ``rules.FamilyRules``; the module-level
instances below are the ones ``shared.games.registry`` serves.
"""

from shared.games.golf_family.engine import GolfFamilyEngine
from shared.games.golf_family.rules import CABO_RULES, CAMBIO_RULES, FOUR_DOWN_RULES, GOLF_RULES

FOUR_DOWN = GolfFamilyEngine(FOUR_DOWN_RULES)
GOLF = GolfFamilyEngine(GOLF_RULES)
CAMBIO = GolfFamilyEngine(CAMBIO_RULES)
CABO = GolfFamilyEngine(CABO_RULES)

__all__ = ["CABO", "CAMBIO", "FOUR_DOWN", "GOLF", "GolfFamilyEngine"]
