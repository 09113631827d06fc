"""The `tower` engine: FOUR DOWN, the Stone Tower shedding game (seed 002, rules/tower.md TO-1..TO-18).

Each seat holds a hand, four face-up cards and four Four Down cards under them; seats take turns
playing one exact rank onto the arena (equal to or lower than its top), four consecutive of a rank
or a Tower 4 clear it, and whoever cannot (or will not) play picks the arena up. The first seat
out of cards wins the round; lowest total after `rounds` rounds is TOWER MASTER.

Limits: turn-based only, so there are no timers (`next_deadline` is always None); the table
service owns the turn clock and asks `clock_actions` what to play when it runs out. Cards of
several packs share names, so hands are multisets and a Four Down card is tracked by its slot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterator, Mapping, Sequence

from shared.games import cards as card_text
from shared.games.base import (
    BAD_DEAL,
    BAD_OPTION,
    BAD_SEAT_COUNT,
    BAD_TARGET,
    ILLEGAL,
    NOT_YOUR_TURN,
    ROUND_OVER,
    UNKNOWN_ACTION,
    Action,
    Event,
    Json,
    MatchResult,
    Rejection,
    SeatView,
    Setup,
    Standing,
    private,
    public,
)
from shared.games.rng import shuffled

GAME_ID = "tower"
MIN_SEATS = 2  # TO-2
MAX_SEATS = 6  # TO-2
ROUND_FORMATS = (1, 3, 10)  # TO-2: ten rounds, or the short formats of README "Progression"
DEFAULT_ROUNDS = 10  # TO-2
SLOTS = 4  # TO-3: four Four Down cards in a row, one face-up card on each
CARDS_PER_SEAT = 19  # TO-3: 4 down + 4 up + 11 in hand
CLEAR_COUNT = 4  # TO-6: the fourth consecutive card of a rank clears the arena
TOWER_RANK = "4"  # TO-1: the 4s are the Tower 4 cards
HOT_FIVE = "5"  # TO-11
SKIP_RANK = "6"  # TO-12
HIGH_SEVEN = "7"  # TO-13
REVERSE_RANK = "8"  # TO-14
# TO-1: ranks low to high; the ace is the 1 and there is no ordinary 4.
RANK_ORDER: tuple[str, ...] = ("A", "2", "3", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_VALUE: dict[str, int] = {rank: value for value, rank in enumerate(RANK_ORDER, start=1)}
TOWER_HOLDER_VALUE = len(RANK_ORDER) + 1  # TO-4: a Tower 4 beats every other card
EMPTY_SLOT_VALUE = 0  # TO-4 on a given deal with a gone face-up slot: below every card
LOW_CARD_POINTS = 5  # TO-15: 1 2 3 5 6 7 and Tower 4
HIGH_CARD_POINTS = 10  # TO-15: 8 9 10 J Q K
HIGH_SCORING_RANKS = frozenset({"8", "9", "10", "J", "Q", "K"})  # TO-15
HOT_FIVES, SKIP_SIXES, HIGH_SEVENS, REVERSE_EIGHTS = "hot_fives", "skip_sixes", "high_sevens", "reverse_eights"
VARIATIONS: tuple[str, ...] = (HOT_FIVES, SKIP_SIXES, HIGH_SEVENS, REVERSE_EIGHTS)  # TO-11..TO-14
DIRECTIONS: dict[str, int] = {"left": 1, "right": -1}  # TO-5: left = increasing seat number
PLAYING, MATCH_OVER = "playing", "match_over"
CLOCK_STEP_LIMIT = 64  # clears let a turn go on; a turn can never take more plays than a seat has cards
NUMBER_WORDS = {1: "ONE", 2: "TWO", 3: "THREE", 4: "FOUR"}
RANK_WORDS: dict[str, tuple[str, str]] = {
    "K": ("KING", "KINGS"),
    "Q": ("QUEEN", "QUEENS"),
    "J": ("JACK", "JACKS"),
    "10": ("TEN", "TENS"),
    "A": ("1", "1s"),  # TO-1: the ace is the 1
}
ACTION_KEYS: dict[str, frozenset[str]] = {
    "setup": frozenset({"type", "direction", "variations"}),
    "play": frozenset({"type", "hand", "up", "down", "as"}),
    "flip": frozenset({"type", "slot"}),
    "pick_up": frozenset({"type"}),
}
AS_ALIASES = {"1": "A"}  # the ace may be named as the 1 it is (TO-1)


# ----------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True)
class Layout:
    """One seat's cards: hand (a multiset), face-up slots and Four Down slots (None when gone)."""

    hand: tuple[str, ...]
    up: tuple[str | None, ...]
    down: tuple[str | None, ...]

    def card_count(self) -> int:
        return len(self.hand) + sum(c is not None for c in self.up) + sum(c is not None for c in self.down)

    def all_cards(self) -> list[str]:
        return [*self.hand, *(c for c in self.up if c), *(c for c in self.down if c)]

    def down_unlocked(self) -> bool:
        """TO-9: the Four Down cards unlock the moment the last face-up card is gone."""
        return all(card is None for card in self.up)


@dataclass(frozen=True)
class Flip:
    """A Four Down card turned over and waiting to be played or picked up (TO-10)."""

    seat: int
    slot: int
    card: str


@dataclass(frozen=True)
class TowerState:
    seats: int
    rounds: int
    host: int
    seed: int
    deals: tuple[Mapping[str, Json], ...]
    round: int
    holder: int
    turn: int | None
    turn_number: int  # grows each time a turn ends (a skip to oneself included), never on a clear
    awaiting_setup: bool
    direction: int
    variations: frozenset[str]
    layouts: tuple[Layout, ...]
    arena: tuple[tuple[str, str], ...]  # (card, rank it counts as), bottom to top
    cleared: tuple[str, ...]  # out of play for this round (TO-6)
    aside: tuple[str, ...]  # TO-1: not dealt, unseen
    flipped: Flip | None
    totals: tuple[int, ...]
    history: tuple[tuple[int, ...], ...]
    over: bool


@dataclass(frozen=True)
class Play:
    """A checked play: the cards in arena order and where each came from."""

    hand: tuple[str, ...]
    up: tuple[int, ...]
    down: int | None
    cards: tuple[str, ...]
    counts_as: str | None  # None for a Tower 4
    hot: int  # 5s played as another rank (TO-11)


# ----------------------------------------------------------------------------------------------
# Small rules helpers


def packs_for(seats: int) -> int:
    """TO-1: one pack for 2 players, two for 3 to 5, three for 6."""
    if seats <= 2:
        return 1
    return 2 if seats <= 5 else 3


def rank_of(card: str) -> str:
    return card_text.rank(card)


def card_points(card: str) -> int:
    """TO-15."""
    return HIGH_CARD_POINTS if rank_of(card) in HIGH_SCORING_RANKS else LOW_CARD_POINTS


def holder_value(card: str | None) -> int:
    """TO-4: a Tower 4 beats everything, otherwise the highest rank."""
    if card is None:
        return EMPTY_SLOT_VALUE
    rank = rank_of(card)
    return TOWER_HOLDER_VALUE if rank == TOWER_RANK else RANK_VALUE[rank]


def first_holder(layouts: Sequence[Layout]) -> int:
    """TO-4: compare face-up slot 0, then 1, 2, 3 among the tied; then the lowest seat."""
    return max(range(len(layouts)), key=lambda s: ([holder_value(c) for c in layouts[s].up], -s))


def announce_text(rank: str, count: int, high_seven: bool) -> str:
    """The seed's words for the consecutive count on top ("TWO JACKS!", "FOUR 5s — CLEAR IT!")."""
    singular, plural = RANK_WORDS.get(rank, (rank, rank + "s"))
    if high_seven:
        singular, plural = "HIGH SEVEN", "HIGH SEVENS"  # TO-13
    name = singular if count == 1 else plural
    if count >= CLEAR_COUNT:
        return f"FOUR {name} — CLEAR IT!"
    if high_seven and count == 1:
        return "HIGH SEVEN!"
    return f"{NUMBER_WORDS[count]} {name}!"


def top_of(arena: Sequence[tuple[str, str]]) -> tuple[str | None, int]:
    """The rank on top of the arena and how many of it lie consecutively there."""
    if not arena:
        return None, 0
    top = arena[-1][1]
    count = 0
    for _, counts_as in reversed(arena):
        if counts_as != top:
            break
        count += 1
    return top, count


def can_follow(state: TowerState, rank: str) -> bool:
    """TO-6, TO-13: may a play counting as ``rank`` go on the arena now (count limit aside)?"""
    top, _ = top_of(state.arena)
    if top is None:
        return True
    if HIGH_SEVENS in state.variations and top == HIGH_SEVEN:
        return rank == HIGH_SEVEN or RANK_VALUE[rank] > RANK_VALUE[HIGH_SEVEN]
    return RANK_VALUE[rank] <= RANK_VALUE[top]


def room_for(state: TowerState, rank: str) -> int:
    """TO-6: how many cards of ``rank`` fit before four lie consecutively on top."""
    top, count = top_of(state.arena)
    return CLEAR_COUNT - count if top == rank else CLEAR_COUNT


def next_seat(state: TowerState, seat: int, steps: int = 1) -> int:
    """TO-5: the seat ``steps`` places on in the direction of play."""
    return (seat + state.direction * steps) % state.seats


def remove_one(items: tuple[str, ...], card: str) -> tuple[str, ...]:
    index = items.index(card)
    return items[:index] + items[index + 1 :]


# ----------------------------------------------------------------------------------------------
# Dealing


def _card_list(value: Json, what: str, allow_empty_slots: bool) -> list[str | None]:
    if not isinstance(value, list):
        raise Rejection(BAD_DEAL, f"{what} must be a list of cards")
    for card in value:
        if card is None and allow_empty_slots:
            continue
        if not isinstance(card, str) or not card_text.is_card(card):
            raise Rejection(BAD_DEAL, f"{what} holds something that is not a card")
    return list(value)


def layouts_from_deal(deal: Mapping[str, Json], seats: int) -> tuple[tuple[Layout, ...], tuple[str, ...] | None]:
    """A scenario's exact deal (FORMAT.md `tower`): per seat `down`, `up`, `hand`; `aside` optional."""
    per_seat = deal.get("seats") if isinstance(deal, Mapping) else None
    if not isinstance(per_seat, list) or len(per_seat) != seats:
        raise Rejection(BAD_DEAL, f"a tower deal needs `seats` with one entry per seat ({seats})")
    layouts = []
    for index, entry in enumerate(per_seat):
        if not isinstance(entry, Mapping) or set(entry) - {"down", "up", "hand"}:
            raise Rejection(BAD_DEAL, f"seat {index}: a deal entry holds `down`, `up` and `hand`")
        down = _card_list(entry.get("down", [None] * SLOTS), f"seat {index} down", True)
        up = _card_list(entry.get("up", [None] * SLOTS), f"seat {index} up", True)
        hand = _card_list(entry.get("hand", []), f"seat {index} hand", False)
        if len(down) != SLOTS or len(up) != SLOTS:
            raise Rejection(BAD_DEAL, f"seat {index}: `down` and `up` have {SLOTS} slots each")
        layouts.append(Layout(tuple(c for c in hand if c), tuple(up), tuple(down)))
    aside = deal.get("aside")
    if aside is None:
        return tuple(layouts), None
    return tuple(layouts), tuple(c for c in _card_list(aside, "aside", False) if c)


def deck_for(seats: int) -> list[str]:
    return card_text.standard_deck() * packs_for(seats)  # TO-1


def deal_round(state: TowerState, round_number: int) -> tuple[tuple[Layout, ...], tuple[str, ...]]:
    """TO-1, TO-3: the given deal for this round, or 19 cards each from the seeded shuffle."""
    deck = deck_for(state.seats)
    if round_number <= len(state.deals):
        layouts, aside = layouts_from_deal(state.deals[round_number - 1], state.seats)
        if aside is None:  # TO-1: what was not dealt is set aside
            left = Counter(deck) - Counter(c for layout in layouts for c in layout.all_cards())
            aside = tuple(left.elements())
        return layouts, aside
    order = shuffled(deck, state.seed, "deal", round_number)
    dealt: list[Layout] = []
    for seat in range(state.seats):
        cards = order[seat * CARDS_PER_SEAT : (seat + 1) * CARDS_PER_SEAT]
        dealt.append(Layout(tuple(cards[2 * SLOTS :]), tuple(cards[SLOTS : 2 * SLOTS]), tuple(cards[:SLOTS])))
    return tuple(dealt), tuple(order[state.seats * CARDS_PER_SEAT :])


def open_round(state: TowerState, round_number: int, holder: int | None) -> tuple[TowerState, list[Event]]:
    """Deal a round; the holder (TO-4 for round 1 unless given, else the last winner) sets it up."""
    layouts, aside = deal_round(state, round_number)
    if holder is None:
        holder = first_holder(layouts)
    state = replace(
        state,
        round=round_number,
        holder=holder,
        turn=holder,
        turn_number=state.turn_number + 1,
        awaiting_setup=True,
        direction=DIRECTIONS["left"],
        variations=frozenset(),
        layouts=layouts,
        arena=(),
        cleared=(),
        aside=aside,
        flipped=None,
    )
    events = [
        public(
            "round_started",
            round=round_number,
            holder=holder,
            up=[list(layout.up) for layout in layouts],
            hand_sizes=[len(layout.hand) for layout in layouts],
            down_counts=[sum(c is not None for c in layout.down) for layout in layouts],
            aside_size=len(aside),
        )
    ]
    events += [private(seat, "dealt", hand=sorted(layouts[seat].hand)) for seat in range(state.seats)]
    events.append(public("setup_needed", seat=holder, round=round_number, variations_allowed=round_number > 1))
    return state, events


# ----------------------------------------------------------------------------------------------
# Reading actions (everything a client sends is checked; only Rejection ever escapes)


def require_shape(action: Action) -> str:
    if not isinstance(action, Mapping):
        raise Rejection(UNKNOWN_ACTION, "an action is an object with a `type`")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in ACTION_KEYS:
        raise Rejection(UNKNOWN_ACTION, "unknown action type")
    extra = set(action) - ACTION_KEYS[kind]
    if extra:
        raise Rejection(UNKNOWN_ACTION, f"unexpected fields for {kind}: {sorted(map(str, extra))}")
    return kind


def int_list(value: Json, field: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise Rejection(UNKNOWN_ACTION, f"`{field}` is a list of slot numbers")
    return tuple(value)


def card_list(value: Json) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and card_text.is_card(v) for v in value):
        raise Rejection(UNKNOWN_ACTION, "`hand` is a list of card names")
    return tuple(value)


def read_as(value: Json) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise Rejection(UNKNOWN_ACTION, "`as` names a rank")
    rank = AS_ALIASES.get(value, value)
    if rank not in card_text.RANKS:
        raise Rejection(UNKNOWN_ACTION, "`as` names a rank")
    return rank


def read_slot(value: Json) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Rejection(UNKNOWN_ACTION, "`slot` is a slot number")
    return value


# ----------------------------------------------------------------------------------------------
# Checking a play (TO-6, TO-7, TO-9, TO-10, TO-11, TO-13)


def check_sources(
    state: TowerState, seat: int, hand: tuple[str, ...], up: tuple[int, ...], down: tuple[int, ...]
) -> None:
    layout = state.layouts[seat]
    if len(set(up)) != len(up) or any(not 0 <= s < SLOTS or layout.up[s] is None for s in up):
        raise Rejection(BAD_TARGET, "a face-up slot named is empty, repeated or out of range")
    if any(not 0 <= s < SLOTS or layout.down[s] is None for s in down):
        raise Rejection(BAD_TARGET, "a Four Down slot named is empty or out of range")
    if Counter(hand) - Counter(layout.hand):
        raise Rejection(BAD_TARGET, "a card named is not in your hand")
    flip = state.flipped
    if flip is None and down:
        raise Rejection(ILLEGAL, "flip a Four Down card before playing it")  # TO-9
    if flip is not None:  # TO-10: the flipped card must be played, or the arena picked up
        if len(down) != 1:
            raise Rejection(ILLEGAL, "play the flipped card (with same-rank hand cards) or pick up")
        if down[0] != flip.slot:
            raise Rejection(BAD_TARGET, "only the Four Down card just flipped may be played")


def counts_as(state: TowerState, cards: tuple[str, ...], named: str | None) -> tuple[str, int]:
    """TO-6, TO-11: the one rank the cards play as, and how many 5s stand in for it."""
    ranks = [rank_of(c) for c in cards]
    if named is not None:
        if HOT_FIVES not in state.variations:
            raise Rejection(ILLEGAL, "`as` needs Hot Fives in force")  # TO-11
        if named == TOWER_RANK:
            raise Rejection(ILLEGAL, "a Hot Five cannot be a Tower 4")  # TO-11
        if any(r not in (named, HOT_FIVE) for r in ranks):
            raise Rejection(ILLEGAL, "every card of a play has the same rank")
        return named, (sum(r == HOT_FIVE for r in ranks) if named != HOT_FIVE else 0)
    if len(set(ranks)) != 1:
        raise Rejection(ILLEGAL, "every card of a play has the same rank")  # TO-6
    return ranks[0], 0


def check_play(state: TowerState, seat: int, action: Action) -> Play:
    hand, up = card_list(action.get("hand")), int_list(action.get("up"), "up")
    down = int_list(action.get("down"), "down")
    named = read_as(action.get("as"))
    check_sources(state, seat, hand, up, down)
    layout = state.layouts[seat]
    cards = hand + tuple(layout.up[s] or "" for s in up) + tuple(layout.down[s] or "" for s in down)
    if not cards:
        raise Rejection(ILLEGAL, "a play needs at least one card")
    rank, hot = counts_as(state, cards, named)
    play = Play(hand, up, down[0] if down else None, cards, rank, hot)
    if rank == TOWER_RANK:  # TO-7
        if len(cards) != 1:
            raise Rejection(ILLEGAL, "a Tower 4 is played alone")
        return replace(play, counts_as=None)
    if not can_follow(state, rank):
        raise Rejection(ILLEGAL, "that rank may not go on the arena now")  # TO-6, TO-13
    if len(cards) > room_for(state, rank):
        raise Rejection(ILLEGAL, "no more than four of a rank may lie together on the arena")  # TO-6
    return play


# ----------------------------------------------------------------------------------------------
# Moving on


def end_turn(state: TowerState, seat: int, steps: int = 1) -> tuple[TowerState, list[Event]]:
    following = next_seat(state, seat, steps)
    state = replace(state, turn=following, turn_number=state.turn_number + 1)
    return state, [public("turn", seat=following)]


def finish_round(state: TowerState, winner: int) -> tuple[TowerState, list[Event]]:
    """TO-15 scores; TO-16 the match end; otherwise the next round is dealt at once (README)."""
    scores = tuple(
        0 if s == winner else sum(map(card_points, state.layouts[s].all_cards())) for s in range(state.seats)
    )
    totals = tuple(t + s for t, s in zip(state.totals, scores))
    state = replace(state, totals=totals, history=state.history + (scores,), flipped=None)
    events = [public("round_over", round=state.round, winner=winner, round_scores=list(scores), totals=list(totals))]
    if state.round >= state.rounds:
        state = replace(state, over=True, turn=None)
        master, disaster = titles(totals)
        events.append(
            public(
                "match_over",
                totals=list(totals),
                winners=master,
                tower_master=master,
                tower_disaster=disaster,
                text=match_text(master, disaster),
            )
        )
        return state, events
    state, dealt = open_round(state, state.round + 1, winner)  # TO-5: the round winner holds the tower
    return state, events + dealt


def titles(totals: Sequence[int]) -> tuple[list[int], list[int]]:
    """TO-16: lowest total(s) TOWER MASTER, highest TOWER DISASTER (none when everyone is level)."""
    low, high = min(totals), max(totals)
    master = [s for s, t in enumerate(totals) if t == low]
    disaster = [s for s, t in enumerate(totals) if t == high] if high > low else []
    return master, disaster


def match_text(master: list[int], disaster: list[int]) -> str:
    words = [f"TOWER MASTER: seat {' and seat '.join(map(str, master))}!"]
    if disaster:
        words.append(f"TOWER DISASTER: seat {' and seat '.join(map(str, disaster))}!")
    return " ".join(words)


def take_cards(layout: Layout, play: Play) -> Layout:
    hand = layout.hand
    for card in play.hand:
        hand = remove_one(hand, card)
    up = tuple(None if s in play.up else c for s, c in enumerate(layout.up))
    down = tuple(None if s == play.down else c for s, c in enumerate(layout.down))
    return Layout(hand, up, down)


def apply_play(state: TowerState, seat: int, play: Play) -> tuple[TowerState, list[Event]]:
    layouts = list(state.layouts)
    layouts[seat] = take_cards(layouts[seat], play)
    events = [
        public(
            "played",
            seat=seat,
            cards=list(play.cards),
            hand=len(play.hand),
            up=list(play.up),
            down=[] if play.down is None else [play.down],
            counts_as=play.counts_as or TOWER_RANK,
        )
    ]
    state = replace(state, layouts=tuple(layouts), flipped=None)
    if play.counts_as is None:  # TO-7
        arena_cards = tuple(c for c, _ in state.arena) + play.cards
        state = replace(state, arena=(), cleared=state.cleared + arena_cards)
        events.append(public("announce", seat=seat, **announcement(None, 0, True, None, False, False, 0)))
        events.append(public("arena_cleared", seat=seat, cards=list(arena_cards)))
        return after_play(state, seat, events, cleared=True, skip=False, reverse=False)
    rank = play.counts_as
    arena = state.arena + tuple((card, rank) for card in play.cards)
    _, count = top_of(arena)
    cleared = count >= CLEAR_COUNT  # TO-6
    skip = not cleared and rank == SKIP_RANK and SKIP_SIXES in state.variations  # TO-12
    reverse = not cleared and rank == REVERSE_RANK and REVERSE_EIGHTS in state.variations  # TO-14
    high = rank == HIGH_SEVEN and HIGH_SEVENS in state.variations  # TO-13
    skipped = next_seat(state, seat) if skip else None
    state = replace(state, arena=arena)
    events.append(public("announce", seat=seat, **announcement(rank, count, cleared, skipped, reverse, high, play.hot)))
    if cleared:
        state = replace(state, arena=(), cleared=state.cleared + tuple(c for c, _ in arena))
        events.append(public("arena_cleared", seat=seat, cards=[c for c, _ in arena]))
    return after_play(state, seat, events, cleared=cleared, skip=skip, reverse=reverse)


def announcement(
    rank: str | None, count: int, cleared: bool, skipped: int | None, reverse: bool, high: bool, hot: int
) -> dict[str, Json]:
    """The announce event's fields (issue: "carrying the consecutive count ... so a client can say them")."""
    if rank is None:
        text = "CLEAR IT!"  # TO-7
    else:
        text = announce_text(rank, count, high)
    if skipped is not None:
        text += f" SKIP seat {skipped}!"
    if reverse:
        text += " BACK ATCHA!"
    return {
        "rank": rank if rank is not None else TOWER_RANK,
        "count": count,
        "cleared": cleared,
        "tower": rank is None,
        "skip": skipped,
        "reversed": reverse,
        "high_sevens": high,
        "hot_fives": hot,
        "text": text,
    }


def after_play(
    state: TowerState, seat: int, events: list[Event], *, cleared: bool, skip: bool, reverse: bool
) -> tuple[TowerState, list[Event]]:
    if state.layouts[seat].card_count() == 0:  # TO-15
        more_state, more = finish_round(state, seat)
        return more_state, events + more
    if cleared:  # TO-6, TO-7: the same player goes again
        return state, events + [public("go_again", seat=seat)]
    if reverse:  # TO-14
        state = replace(state, direction=-state.direction)
    more_state, more = end_turn(state, seat, 2 if skip else 1)  # TO-12
    return more_state, events + more


def apply_pick_up(state: TowerState, seat: int, forced: bool) -> tuple[TowerState, list[Event]]:
    """TO-8, TO-10: the arena (and a pending flipped card, privately) joins the hand; the turn ends."""
    arena_cards = tuple(card for card, _ in state.arena)
    layout = state.layouts[seat]
    flip = state.flipped
    taken = arena_cards + ((flip.card,) if flip else ())
    down = tuple(None if flip and s == flip.slot else c for s, c in enumerate(layout.down))
    layouts = list(state.layouts)
    layouts[seat] = Layout(layout.hand + taken, layout.up, down)
    state = replace(state, layouts=tuple(layouts), arena=(), flipped=None)
    events = [
        public(
            "picked_up",
            seat=seat,
            cards=list(arena_cards),
            count=len(taken),
            flipped_slot=flip.slot if flip else None,
            forced=forced,
        )
    ]
    if flip is not None:  # TO-10, TO-17: not shown to anyone else
        events.append(private(seat, "took_flipped", slot=flip.slot, card=flip.card))
    more_state, more = end_turn(state, seat)
    return more_state, events + more


def flip_can_play(state: TowerState, card: str) -> bool:
    """TO-10 (with TO-11, TO-13): a Tower 4, an empty arena, or a rank that may follow the top."""
    rank = rank_of(card)
    if rank == TOWER_RANK or not state.arena:
        return True
    if rank == HOT_FIVE and HOT_FIVES in state.variations:
        return any(can_follow(state, r) and room_for(state, r) > 0 for r in RANK_ORDER)
    return can_follow(state, rank)


def apply_flip(state: TowerState, seat: int, slot: int) -> tuple[TowerState, list[Event]]:
    layout = state.layouts[seat]
    if state.flipped is not None:
        raise Rejection(ILLEGAL, "one Four Down card per turn: play the flipped card or pick up")  # TO-9
    if not layout.down_unlocked():
        raise Rejection(ILLEGAL, "the Four Down cards unlock when the last face-up card is gone")  # TO-9
    if not 0 <= slot < SLOTS or layout.down[slot] is None:
        raise Rejection(BAD_TARGET, "that Four Down slot holds no card")
    card = layout.down[slot] or ""
    plays = flip_can_play(state, card)
    state = replace(state, flipped=Flip(seat, slot, card))
    events = [
        public("flipped", seat=seat, slot=slot),
        private(seat, "flip_shown", reveal=True, slot=slot, card=card, plays=plays),  # TO-10
    ]
    if plays:
        return state, events
    more_state, more = apply_pick_up(state, seat, forced=True)  # TO-10: it cannot play
    return more_state, events + more


def apply_setup(state: TowerState, action: Action) -> tuple[TowerState, list[Event]]:
    """TO-5: direction, and from round 2 on any set of variations."""
    direction = action.get("direction")
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        raise Rejection(UNKNOWN_ACTION, "`direction` is `left` or `right`")
    chosen = action.get("variations", [])
    if not isinstance(chosen, list) or not all(isinstance(v, str) and v in VARIATIONS for v in chosen):
        raise Rejection(UNKNOWN_ACTION, f"`variations` is a list drawn from {list(VARIATIONS)}")
    if len(set(chosen)) != len(chosen):
        raise Rejection(UNKNOWN_ACTION, "a variation is named once")
    if not state.awaiting_setup:
        raise Rejection(ILLEGAL, "the round is already set up")
    if chosen and state.round == 1:
        raise Rejection(ILLEGAL, "the first round is played without variations")  # TO-5
    ordered = [v for v in VARIATIONS if v in chosen]
    state = replace(
        state,
        awaiting_setup=False,
        direction=DIRECTIONS[direction],
        variations=frozenset(chosen),
        turn_number=state.turn_number + 1,
    )
    return state, [public("setup", seat=state.holder, direction=direction, variations=ordered)]


# ----------------------------------------------------------------------------------------------
# Listing legal plays


def sub_multisets(counts: Sequence[tuple[str, int]], size: int) -> Iterator[tuple[str, ...]]:
    """Every distinct choice of ``size`` cards from named cards with multiplicities."""
    if size == 0:
        yield ()
        return
    if not counts:
        return
    (name, available), rest = counts[0], counts[1:]
    for take in range(min(available, size), -1, -1):
        for tail in sub_multisets(rest, size - take):
            yield (name,) * take + tail


def subsets(items: Sequence[int], size: int) -> Iterator[tuple[int, ...]]:
    if size == 0:
        yield ()
        return
    for index, item in enumerate(items):
        for tail in subsets(items[index + 1 :], size - 1):
            yield (item,) + tail


def plays_as(state: TowerState, seat: int, rank: str, forced_down: int | None) -> Iterator[dict[str, Json]]:
    """Every play counting as ``rank`` (5s stand in under Hot Fives), with the forced down card if any."""
    layout = state.layouts[seat]
    wild = HOT_FIVES in state.variations and rank != HOT_FIVE
    fits = (rank, HOT_FIVE) if wild else (rank,)
    hand_counts = sorted(Counter(c for c in layout.hand if rank_of(c) in fits).items())
    up_slots = [s for s, c in enumerate(layout.up) if c is not None and rank_of(c) in fits]
    fixed = 0 if forced_down is None else 1
    if forced_down is not None and rank_of(layout.down[forced_down] or "") not in fits:
        return
    room = room_for(state, rank)
    for total in range(1, room + 1):
        for up_count in range(0, min(len(up_slots), total - fixed) + 1):
            for hand in sub_multisets(hand_counts, total - fixed - up_count):
                for up in subsets(up_slots, up_count):
                    action: dict[str, Json] = {"type": "play", "hand": list(hand), "up": list(up)}
                    cards = list(hand) + [layout.up[s] or "" for s in up]
                    if forced_down is not None:
                        action["down"] = [forced_down]
                        cards.append(layout.down[forced_down] or "")
                    if wild and any(rank_of(c) == HOT_FIVE for c in cards):
                        action["as"] = rank
                    yield action


def legal_plays(state: TowerState, seat: int) -> list[dict[str, Json]]:
    forced = state.flipped.slot if state.flipped else None
    layout = state.layouts[seat]
    plays = [p for rank in RANK_ORDER if can_follow(state, rank) for p in plays_as(state, seat, rank, forced)]
    if forced is not None:
        if rank_of(layout.down[forced] or "") == TOWER_RANK:
            plays.append({"type": "play", "hand": [], "up": [], "down": [forced]})
        return plays
    for name in sorted({c for c in layout.hand if rank_of(c) == TOWER_RANK}):
        plays.append({"type": "play", "hand": [name], "up": []})
    towers_up = [s for s, c in enumerate(layout.up) if c and rank_of(c) == TOWER_RANK]
    plays += [{"type": "play", "hand": [], "up": [s]} for s in towers_up]
    return plays


def setup_choices(state: TowerState) -> list[dict[str, Json]]:
    if state.round == 1:
        sets: list[list[str]] = [[]]
    else:
        sets = [[v for i, v in enumerate(VARIATIONS) if mask >> i & 1] for mask in range(1 << len(VARIATIONS))]
    return [{"type": "setup", "direction": d, "variations": chosen} for d in DIRECTIONS for chosen in sets]


# ----------------------------------------------------------------------------------------------
# The engine


class TowerGame:
    """FOUR DOWN, the Stone Tower shedding game (rules/tower.md)."""

    id = GAME_ID
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    def check_options(self, options: Mapping[str, Json], seats: int) -> dict[str, Json]:
        if not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
            raise Rejection(BAD_SEAT_COUNT, f"tower seats {MIN_SEATS} to {MAX_SEATS}")  # TO-2
        if not isinstance(options, Mapping):
            raise Rejection(BAD_OPTION, "options are an object")
        unknown = set(options) - {"rounds", "host"}
        if unknown:
            raise Rejection(BAD_OPTION, f"unknown options {sorted(map(str, unknown))}")
        rounds = options.get("rounds", DEFAULT_ROUNDS)
        if isinstance(rounds, bool) or rounds not in ROUND_FORMATS:
            raise Rejection(BAD_OPTION, f"`rounds` is one of {list(ROUND_FORMATS)}")  # TO-2
        host = options.get("host", 0)
        if not isinstance(host, int) or isinstance(host, bool) or not 0 <= host < seats:
            raise Rejection(BAD_OPTION, "`host` is a seat")
        return {"rounds": rounds, "host": host}

    def start(self, setup: Setup) -> tuple[TowerState, list[Event]]:
        options = self.check_options(setup.options, setup.seats)
        if setup.first is not None and not (isinstance(setup.first, int) and 0 <= setup.first < setup.seats):
            raise Rejection(BAD_DEAL, "`first` is a seat")
        state = TowerState(
            seats=setup.seats,
            rounds=int(options["rounds"]),
            host=int(options["host"]),
            seed=setup.seed,
            deals=tuple(setup.deals),
            round=0,
            holder=0,
            turn=None,
            turn_number=0,
            awaiting_setup=True,
            direction=DIRECTIONS["left"],
            variations=frozenset(),
            layouts=(),
            arena=(),
            cleared=(),
            aside=(),
            flipped=None,
            totals=(0,) * setup.seats,
            history=(),
            over=False,
        )
        return open_round(state, 1, setup.first)

    def apply(self, state: TowerState, seat: int, action: Action, now: float) -> tuple[TowerState, list[Event]]:
        kind = require_shape(action)
        if state.over:
            raise Rejection(ROUND_OVER, "the match is over")
        if seat != state.turn:
            raise Rejection(NOT_YOUR_TURN, "it is not your turn")
        if kind == "setup":
            return apply_setup(state, action)
        if state.awaiting_setup:
            raise Rejection(ILLEGAL, "the holder sets up the round first")  # TO-5
        if kind == "flip":
            return apply_flip(state, seat, read_slot(action.get("slot")))
        if kind == "pick_up":
            if not state.arena:
                raise Rejection(ILLEGAL, "there is nothing on the arena to pick up")  # TO-8
            return apply_pick_up(state, seat, forced=False)
        return apply_play(state, seat, check_play(state, seat, action))

    def next_deadline(self, state: TowerState) -> float | None:
        return None

    def advance(self, state: TowerState, now: float) -> tuple[TowerState, list[Event]]:
        return state, []

    def to_move(self, state: TowerState) -> int | None:
        return None if state.over else state.turn

    def legal_actions(self, state: TowerState, seat: int) -> list[dict[str, Json]]:
        if state.over or seat != state.turn:
            return []
        if state.awaiting_setup:
            return setup_choices(state)
        actions = legal_plays(state, seat)
        layout = state.layouts[seat]
        if state.flipped is None and layout.down_unlocked():
            actions += [{"type": "flip", "slot": s} for s, c in enumerate(layout.down) if c is not None]
        if state.arena:
            actions.append({"type": "pick_up"})
        return actions

    def clock_actions(self, state: TowerState, seat: int) -> list[dict[str, Json]]:
        """Setup: left, no variations. Otherwise, until the turn ends: the lowest ordinary play, or
        pick up, or flip the leftmost Four Down card, or (last) a Tower 4."""
        if state.over or seat != state.turn:
            return []
        if state.awaiting_setup:
            return [{"type": "setup", "direction": "left", "variations": []}]
        chosen: list[dict[str, Json]] = []
        current = state
        while len(chosen) < CLOCK_STEP_LIMIT:
            action = clock_choice(current, seat, self.legal_actions(current, seat))
            chosen.append(action)
            current, _ = self.apply(current, seat, action, 0.0)
            if current.over or current.round != state.round or current.turn_number != state.turn_number:
                break
        return chosen

    def view(self, state: TowerState, seat: int | None) -> SeatView:
        return seat_view(state, seat)

    def result(self, state: TowerState) -> MatchResult | None:
        if not state.over:
            return None
        master, _ = titles(state.totals)
        outcome = "win" if len(master) == 1 else "draw"  # README "Progression"
        standings = tuple(Standing(total, outcome if s in master else "loss") for s, total in enumerate(state.totals))
        return MatchResult(standings=standings, rounds=len(state.history), round_scores=state.history)

    def inspect(self, state: TowerState) -> dict[str, Json]:
        top, count = top_of(state.arena)
        flip = state.flipped
        return {
            "hands": {
                str(s): {"hand": list(layout.hand), "up": list(layout.up), "down": list(layout.down)}
                for s, layout in enumerate(state.layouts)
            },
            "arena": [card for card, _ in state.arena],
            "arena_ranks": [rank for _, rank in state.arena],
            "arena_count": count,
            "arena_top": top,
            "turn": None if state.over else state.turn,
            "phase": MATCH_OVER if state.over else PLAYING,
            "round": state.round,
            "round_scores": list(state.history[-1]) if state.history else [],
            "totals": list(state.totals),
            "winners": titles(state.totals)[0] if state.over else [],
            "caller": None,
            "holder": state.holder,
            "awaiting_setup": state.awaiting_setup and not state.over,
            "direction": "left" if state.direction > 0 else "right",
            "variations": [v for v in VARIATIONS if v in state.variations],
            "flipped": None if flip is None else {"seat": flip.seat, "slot": flip.slot, "card": flip.card},
            "cleared": list(state.cleared),
            "aside": list(state.aside),
        }


def clock_choice(state: TowerState, seat: int, legal: list[dict[str, Json]]) -> dict[str, Json]:
    ordinary = [a for a in legal if a["type"] == "play" and play_rank(state, seat, a) != TOWER_RANK]
    if ordinary:
        return min(ordinary, key=lambda a: (RANK_VALUE[play_rank(state, seat, a)], play_size(a), repr(a)))
    for kind in ("pick_up", "flip"):
        found = [a for a in legal if a["type"] == kind]
        if found:
            return found[0]
    return legal[0]  # only a Tower 4 is left to play (legal is never empty on a seat's turn)


def play_size(action: Mapping[str, Json]) -> int:
    return sum(len(action.get(key) or []) for key in ("hand", "up", "down"))


def play_rank(state: TowerState, seat: int, action: Mapping[str, Json]) -> str:
    if isinstance(action.get("as"), str):
        return str(action["as"])
    layout = state.layouts[seat]
    cards = list(action.get("hand") or []) + [layout.up[s] for s in action.get("up") or []]
    cards += [layout.down[s] for s in action.get("down") or []]
    return rank_of(str(cards[0]))


def seat_view(state: TowerState, seat: int | None) -> SeatView:
    """By allow-list (TO-17): public layout, arena and scores; the seat's own hand and pending flip."""
    top, count = top_of(state.arena)
    master, disaster = titles(state.totals) if state.over else ([], [])
    view: SeatView = {
        "game": GAME_ID,
        "seat": seat,
        "phase": MATCH_OVER if state.over else PLAYING,
        "round": state.round,
        "rounds": state.rounds,
        "turn": None if state.over else state.turn,
        "holder": state.holder,
        "awaiting_setup": state.awaiting_setup and not state.over,
        "variations_allowed": state.round > 1,
        "direction": None if state.awaiting_setup else ("left" if state.direction > 0 else "right"),
        "variations": [v for v in VARIATIONS if v in state.variations],
        "arena": [card for card, _ in state.arena],
        "arena_ranks": [rank for _, rank in state.arena],
        "arena_top": top,
        "arena_count": count,
        "out_of_play": list(state.cleared),
        "aside_size": len(state.aside),
        "packs": packs_for(state.seats),
        "seats": [public_layout(state, s) for s in range(state.seats)],
        "totals": list(state.totals),
        "round_scores": list(state.history[-1]) if state.history else [],
        "history": [list(scores) for scores in state.history],
        "tower_master": master,
        "tower_disaster": disaster,
        "winners": master,
        "options": {"rounds": state.rounds, "host": state.host},
    }
    if seat is not None and 0 <= seat < state.seats:
        view["hand"] = sorted(state.layouts[seat].hand)
        flip = state.flipped
        if flip is not None and flip.seat == seat:  # the owner holds it now, like a drawn card
            view["flipped"] = {"seat": seat, "slot": flip.slot, "card": flip.card}
    return view


def public_layout(state: TowerState, seat: int) -> dict[str, Json]:
    layout = state.layouts[seat]
    flip = state.flipped
    return {
        "seat": seat,
        "hand_size": len(layout.hand),
        "up": list(layout.up),
        "down": [card is not None for card in layout.down],
        "down_unlocked": layout.down_unlocked(),
        "flipped_slot": flip.slot if flip is not None and flip.seat == seat else None,
        "cards_left": layout.card_count(),
    }


TOWER = TowerGame()
