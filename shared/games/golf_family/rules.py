"""The rules of each golf-family game as data: one table per game, read by one engine.

A ``FamilyRules`` says everything that differs between ``four_down``, ``golf``, ``cambio`` and
``cabo``: the deck and card values, the first-look slots, the powers by rank, which claim on a
face-down card exists (match, burn, snap), how a call is scored, what a cleared row does, what
an empty stock does, how a match ends, and the game's options. Adding a game of the family is
adding a table here, not code in the engine. Limits: every game here lays out four cards per
seat and takes one card per turn; a family member that breaks that shape needs engine work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from shared.games.base import BAD_OPTION, BAD_SEAT_COUNT, Json, Rejection
from shared.games.cards import RANKS, SUITS, standard_deck

# Power kinds: what a card drawn from the stock does when its seat plays ``power`` with it.
LOOK_OWN = "look_own"  # look at one of your own cards
LOOK_OTHER = "look_other"  # look at one card of another seat
SWAP_ANY = "swap_any"  # swap any two non-empty slots on the table, unseen (FD-6)
SWAP_OWN_OTHER = "swap_own_other"  # swap one of yours with one of another seat's, unseen
LOOK_THEN_SWAP_OWN_OTHER = "look_then_swap_own_other"  # jack_looks (CA-6): look at one, then swap or pass
LOOK_THEN_SWAP_ANY_SEAT = "look_then_swap"  # cambio queen (CA-4): look at any card, then swap or pass

LOOK_POWERS = frozenset({LOOK_OWN, LOOK_OTHER})
TWO_STEP_POWERS = frozenset({LOOK_THEN_SWAP_OWN_OTHER, LOOK_THEN_SWAP_ANY_SEAT})

# Claims on a face-down card that a seat believes has the rank of a known card.
MATCH = "match"  # four_down: against the card just drawn from the stock (FD-7)
BURN = "burn"  # golf extreme: against the top discard, before drawing (GO-9)
SNAP = "snap"  # cambio, cabo: against the top discard while its window is open (CA-7)

# How a round's call is scored.
CALL_PLAIN = "plain"  # FD-13: no bonus, no penalty
CALL_KNOCK_PENALTY = "knock_penalty"  # GO-5: +10 unless lowest or tied lowest
CALL_STRICT_LOWEST = "strict_lowest"  # CA-13: 0 if strictly lowest, else the highest hand + 10

# What a seat whose row empties does to the round.
CLEAR_ENDS_ROUND = "ends_round"  # FD-10, CA-12
CLEAR_STARTS_FINAL_TURNS = "final_turns"  # GO-11

# What happens when a card must come from an empty stock.
STOCK_OUT_ENDS_ROUND = "ends_round"  # FD-12 (checked at the end of every turn)
STOCK_OUT_RESHUFFLES = "reshuffle"  # GO-6, CA-15

# Option kinds.
BOOL = "bool"
CHOICE = "choice"
POSITIVE_INT = "positive_int"

HOST = "host"


@dataclass(frozen=True)
class OptionSpec:
    """One option a table's creator may set: its kind, allowed values and default."""

    name: str
    kind: str
    default: Json
    choices: tuple[Json, ...] = ()


@dataclass(frozen=True)
class SpecialCallerHand:
    """CA-14: a caller holding exactly these cards scores ``caller_score``, the others ``others_score``."""

    cards: tuple[str, ...]
    caller_score: int
    others_score: int


@dataclass(frozen=True)
class FamilyRules:
    """Everything one game of the family decides; the engine reads nothing else."""

    game_id: str
    min_seats: int
    max_seats: int
    deck: tuple[str, ...]
    values: Mapping[str, int]
    first_look_slots: tuple[int, ...]
    powers: Mapping[str, str]  # rank -> power kind, before options
    claim: str | None
    call_rule: str
    clear_rule: str
    stock_out: str
    options: tuple[OptionSpec, ...] = ()
    # Options that exclude each other (CA-6: ``finish_line`` or ``rounds``).
    exclusive_options: tuple[str, ...] = ()
    # A fixed finish line when the game has no option for it (FD-14).
    fixed_finish_line: int | None = None
    finish_line_option: str | None = None
    rounds_option: str | None = None
    # GO-8, GO-9: powers and claims exist only when this option has this value.
    gated_by: tuple[str, Json] | None = None
    special_caller_hand: SpecialCallerHand | None = None
    move_finish_line: bool = False  # CA-16: the host may move the finish line

    def check_options(self, options: Mapping[str, Json], seats: int) -> dict[str, Json]:
        """The options in force, defaults filled in; idempotent on its own output."""
        if isinstance(seats, bool) or not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise Rejection(BAD_SEAT_COUNT, f"{self.game_id} seats {self.min_seats} to {self.max_seats}")
        if not isinstance(options, Mapping):
            raise Rejection(BAD_OPTION, "options must be an object")
        specs = {spec.name: spec for spec in self.options}
        unknown = sorted(str(key) for key in options if key not in specs and key != HOST)
        if unknown:
            raise Rejection(BAD_OPTION, f"{self.game_id} has no option {', '.join(unknown)}")
        given = {key: value for key, value in options.items() if value is not None}
        if len([name for name in self.exclusive_options if name in given]) > 1:
            raise Rejection(BAD_OPTION, f"set only one of {', '.join(self.exclusive_options)}")
        chosen: dict[str, Json] = {HOST: _checked_host(given.get(HOST, 0), seats)}
        for spec in self.options:
            chosen[spec.name] = _checked_value(spec, given[spec.name]) if spec.name in given else spec.default
        if self.exclusive_options and any(name in given for name in self.exclusive_options):
            for name in self.exclusive_options:
                if name not in given:
                    chosen[name] = None
        return chosen

    def active(self, options: Mapping[str, Json]) -> bool:
        """Whether powers and claims are in play under ``options`` (GO-8: Extreme only)."""
        return self.gated_by is None or options.get(self.gated_by[0]) == self.gated_by[1]

    def power_of(self, card: str, options: Mapping[str, Json]) -> str | None:
        """The power a stock-drawn ``card`` carries under ``options`` (CA-6 variations applied)."""
        if not self.active(options):
            return None
        power = self.powers.get(rank_of(card))
        if power is None:
            return None
        if options.get("looks_reversed") and power in LOOK_POWERS:  # CA-6
            power = LOOK_OTHER if power == LOOK_OWN else LOOK_OWN
        if options.get("jack_looks") and power == SWAP_OWN_OTHER:  # CA-6
            power = LOOK_THEN_SWAP_OWN_OTHER
        return power

    def claim_in_play(self, options: Mapping[str, Json]) -> str | None:
        return self.claim if self.active(options) else None

    def value(self, card: str) -> int:
        return self.values[card]


def rank_of(card: str) -> str:
    """The rank that matches, bursts and snaps compare: suit ignored (FD-7: all kings match)."""
    if card.isdigit():
        return card
    return card[:-1]


def _checked_host(value: Json, seats: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise Rejection(BAD_OPTION, "host must be a seat number")
    return value


def _checked_value(spec: OptionSpec, value: Json) -> Json:
    if spec.kind == BOOL and isinstance(value, bool):
        return value
    if spec.kind == CHOICE and not isinstance(value, bool) and value in spec.choices:
        return value
    if spec.kind == POSITIVE_INT and isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    raise Rejection(BAD_OPTION, f"bad value for option {spec.name}")


def _standard_values(jack: int, queen: int, king: int, zero_kings: tuple[str, ...]) -> dict[str, int]:
    pips = {"A": 1, **{str(n): n for n in range(2, 11)}, "J": jack, "Q": queen, "K": king}
    values = {rank + suit: pips[rank] for rank in RANKS for suit in SUITS}
    values.update({card: 0 for card in zero_kings})
    return values


def _cabo_deck() -> tuple[str, ...]:
    """CA-5: two 0s, four each of 1 to 12, two 13s (52 cards)."""
    counts = {0: 2, 13: 2, **{n: 4 for n in range(1, 13)}}
    return tuple(str(n) for n in range(14) for _ in range(counts[n]))


_LOOK_AND_SWAP_STANDARD = {
    "7": LOOK_OWN,
    "8": LOOK_OWN,
    "9": LOOK_OTHER,
    "10": LOOK_OTHER,
}

FINISH_LINE = 100  # FD-14, CA-16: the seeds' finish line
KNOCK_PENALTY = 10  # GO-5, CA-13: the seeds' penalty for a failed call
CABO_OTHERS_SCORE = 50  # CA-14: "everybody else takes fifty"

FOUR_DOWN_RULES = FamilyRules(
    game_id="four_down",
    min_seats=2,
    max_seats=4,
    deck=tuple(standard_deck()),
    values=_standard_values(jack=11, queen=12, king=13, zero_kings=("KD",)),
    first_look_slots=(1, 2),  # FD-1
    powers={**_LOOK_AND_SWAP_STANDARD, "J": SWAP_ANY, "Q": SWAP_ANY},  # FD-6
    claim=MATCH,  # FD-7
    call_rule=CALL_PLAIN,  # FD-13
    clear_rule=CLEAR_ENDS_ROUND,  # FD-10
    stock_out=STOCK_OUT_ENDS_ROUND,  # FD-12
    fixed_finish_line=FINISH_LINE,  # FD-14
)

GOLF_RULES = FamilyRules(
    game_id="golf",
    min_seats=2,
    max_seats=6,
    deck=tuple(standard_deck()),
    values=_standard_values(jack=10, queen=10, king=0, zero_kings=()),
    first_look_slots=(2, 3),  # GO-1
    powers={**_LOOK_AND_SWAP_STANDARD, "J": SWAP_OWN_OTHER, "Q": SWAP_OWN_OTHER},  # GO-8
    claim=BURN,  # GO-9
    call_rule=CALL_KNOCK_PENALTY,  # GO-5
    clear_rule=CLEAR_STARTS_FINAL_TURNS,  # GO-11
    stock_out=STOCK_OUT_RESHUFFLES,  # GO-6
    options=(
        OptionSpec("mode", CHOICE, "classic", ("classic", "extreme")),
        OptionSpec("holes", CHOICE, 9, (1, 3, 9)),
    ),
    rounds_option="holes",  # GO-7
    gated_by=("mode", "extreme"),  # GO-8, GO-9
)

_SNAP_OPTIONS = (
    OptionSpec("looks_reversed", BOOL, False),
    OptionSpec("jack_looks", BOOL, False),
    OptionSpec("wrong_snap_cards", CHOICE, 1, (1, 2)),
    OptionSpec("wrong_snap_reveal", BOOL, False),
    OptionSpec("finish_line", POSITIVE_INT, FINISH_LINE),
    OptionSpec("rounds", POSITIVE_INT, None),
)

CAMBIO_RULES = FamilyRules(
    game_id="cambio",
    min_seats=2,
    max_seats=6,
    deck=tuple(standard_deck()),
    values=_standard_values(jack=10, queen=10, king=13, zero_kings=("KH", "KD")),
    first_look_slots=(2, 3),  # CA-1
    powers={  # CA-4
        "7": LOOK_OTHER,
        "8": LOOK_OTHER,
        "9": LOOK_OWN,
        "10": LOOK_OWN,
        "J": SWAP_OWN_OTHER,
        "Q": LOOK_THEN_SWAP_ANY_SEAT,
    },
    claim=SNAP,  # CA-7
    call_rule=CALL_STRICT_LOWEST,  # CA-13
    clear_rule=CLEAR_ENDS_ROUND,  # CA-12
    stock_out=STOCK_OUT_RESHUFFLES,  # CA-15
    options=_SNAP_OPTIONS,  # CA-6
    exclusive_options=("finish_line", "rounds"),  # CA-6
    finish_line_option="finish_line",  # CA-16
    rounds_option="rounds",  # CA-16
    move_finish_line=True,  # CA-16
)

CABO_RULES = FamilyRules(
    game_id="cabo",
    min_seats=2,
    max_seats=6,
    deck=_cabo_deck(),
    values={str(n): n for n in range(14)},
    first_look_slots=(2, 3),  # CA-1
    powers={  # CA-5
        "7": LOOK_OWN,
        "8": LOOK_OWN,
        "9": LOOK_OTHER,
        "10": LOOK_OTHER,
        "11": SWAP_OWN_OTHER,
        "12": SWAP_OWN_OTHER,
    },
    claim=SNAP,  # CA-7
    call_rule=CALL_STRICT_LOWEST,  # CA-13
    clear_rule=CLEAR_ENDS_ROUND,  # CA-12
    stock_out=STOCK_OUT_RESHUFFLES,  # CA-15
    options=_SNAP_OPTIONS,  # CA-6
    exclusive_options=("finish_line", "rounds"),
    finish_line_option="finish_line",
    rounds_option="rounds",
    special_caller_hand=SpecialCallerHand(("12", "12", "13", "13"), 0, CABO_OTHERS_SCORE),  # CA-14
    move_finish_line=True,
)

ALL_RULES: tuple[FamilyRules, ...] = (FOUR_DOWN_RULES, GOLF_RULES, CAMBIO_RULES, CABO_RULES)

# Every action type of the family (conformance FORMAT.md, "Actions") and its fields.
ACTION_FIELDS: Mapping[str, frozenset[str]] = {
    "draw": frozenset({"from"}),
    "replace": frozenset({"slot"}),
    "discard": frozenset(),
    "power": frozenset({"targets"}),
    "swap": frozenset({"targets"}),
    "pass": frozenset(),
    MATCH: frozenset({"target"}),
    BURN: frozenset({"target"}),
    SNAP: frozenset({"target"}),
    "give": frozenset({"slot"}),
    "call": frozenset(),
    "move_finish_line": frozenset({"to"}),
}
