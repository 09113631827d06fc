"""A robot for `tower` (FOUR DOWN, the Stone Tower shedding game, rules/tower.md).

It sees only its seat's events and views. It remembers, per round, which cards left play (cleared
arenas, so it knows which ranks are scarce) and which cards each opponent publicly picked up. Its
play: start arenas with its hardest cards (high ranks), follow with the highest rank that fits (as
many of it as it can) and keep its low cards as blockers, complete fours to go again, avoid leaving
a third card on top when copies are still out, block an opponent close to going out by playing low,
keep Tower 4s for when a pick-up threatens, spend Hot Fives only when they clear, and flip Four Down
cards when the arena is empty or nothing else plays.

Making progress: low cards that cannot be cleared (their fourth copy set aside or gone) can pass
between seats forever, each seat forcing the other to pick them up. A robot therefore counts the
round's turns (public, so every robot at the table counts alike). A position of its own that comes
back makes it try the next-best play from there. Past ``PRESS_TURNS_PER_SEAT`` turns per seat it
spends Tower 4s on any arena to reset it; past ``SETTLE_TURNS_PER_SEAT`` per seat it settles the
round: the seat with the fewest cards left (the lowest seat among equals, all public) plays on, and
every other robot helps it out, picking the arena up whenever the settler moves next and otherwise
leading high cards it can follow. With robots only, the settler then sheds on every turn and the
round ends.

Limits: it does not model opponents' hands beyond what they picked up, nor plan several turns ahead.
Settling concedes a long round to the seat nearest to going out, whoever it is (a person may
profit). Every choice is taken from the engine's ``legal`` list.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from shared.games.base import Json, SeatView
from shared.games.cards import rank as card_rank
from shared.games.rng import generator

TOWER_RANK = "4"  # TO-1
HOT_FIVE = "5"  # TO-11
SKIP_RANK = "6"  # TO-12
HIGH_SEVEN = "7"  # TO-13
REVERSE_RANK = "8"  # TO-14
CLEAR_COUNT = 4  # TO-6
RANK_VALUE = {r: v for v, r in enumerate(("A", "2", "3", "5", "6", "7", "8", "9", "10", "J", "Q", "K"), start=1)}
COPIES_PER_PACK = 4
CLEAR_BONUS = 60.0  # going again is worth more than any single shed
CARD_BONUS = 10.0  # each card shed
GOING_OUT_BONUS = 1000.0  # the last cards win the round (TO-15): nothing else compares
FACE_UP_BONUS = 3.0  # face-up cards must all go before the Four Down cards unlock (TO-9)
HOT_FIVE_COST = 12.0  # a wild 5 is worth keeping unless it clears (TO-11)
THIRD_CARD_RISK = 15.0  # three on top with copies still out invites an opponent's clear
SCARCE_BONUS = 4.0  # no copy of the rank is left out: nobody can add to it
THREAT_CARDS = 3  # an opponent this close to going out must be blocked with low cards
BLOCK_WEIGHT = 16.0  # above FOLLOW_VALUE_WEIGHT: against a seat about to go out, low cards block
LEAD_VALUE_WEIGHT = 4.0  # leading: the highest cards are the hardest to get rid of later
FOLLOW_VALUE_WEIGHT = 12.0  # following: the highest rank that fits; low cards are blockers worth keeping
TOWER_GUARD_ARENA = 3  # a pick-up of this many cards is worth a Tower 4
FLIP_HAND_LIMIT = 2  # with so few hand cards left, an empty arena is the time to flip
NOISE = 0.25  # breaks ties between equal plays, seeded
REPEAT_LIMIT = 1  # a position met again means play is cycling: try another play from it
PRESS_TURNS_PER_SEAT = 40  # most rounds end well before 40 turns a seat (self-play median ~17)
SETTLE_TURNS_PER_SEAT = 80  # under 1% of self-play rounds last this long; settling then ends them in a few turns
SETTLE_LEAD_WEIGHT = 20.0  # the settler follows a high lead more easily than any shedding gain here
VARIATION_MIN_CARDS = 2  # the holder picks a variation when it holds this many of its rank


class TowerRobot:
    """Plays one `tower` seat from its view and events only."""

    def __init__(self, *, game_id: str, seat: int, seats: int, options: Mapping[str, Json], seed: int) -> None:
        self.game_id = game_id
        self.seat = seat
        self.seats = seats
        self.options = dict(options)
        self.random = generator(seed, "tower-robot", seat)
        self.out_of_play: Counter[str] = Counter()
        self.picked_up: dict[int, Counter[str]] = {}
        self.positions: Counter[tuple[object, ...]] = Counter()
        self.tried: dict[tuple[object, ...], list[dict[str, Json]]] = {}
        self.round_turns = 0

    # ---- memory

    def observe(self, event: Mapping[str, Json]) -> None:
        kind = event.get("kind")
        if kind == "round_started":
            self.out_of_play = Counter()
            self.picked_up = {}
            self.positions = Counter()
            self.tried = {}
            self.round_turns = 0
        elif kind == "turn":
            self.round_turns += 1
        elif kind == "arena_cleared":
            self.out_of_play.update(card_rank(str(c)) for c in event.get("cards") or [])
        elif kind == "picked_up" and isinstance(event.get("seat"), int):
            held = self.picked_up.setdefault(int(event["seat"]), Counter())
            held.update(card_rank(str(c)) for c in event.get("cards") or [])
        elif kind == "played" and isinstance(event.get("seat"), int):
            known = self.picked_up.get(int(event["seat"]))
            if known is not None:
                known.subtract(card_rank(str(c)) for c in event.get("cards") or [])
                known += Counter()  # drop counts at or below zero

    # ---- choosing

    def choose(self, view: SeatView, legal: list[dict[str, Json]], now: float) -> dict[str, Json] | None:
        if not legal:
            return None
        if legal[0]["type"] == "setup":
            return self.choose_setup(view, legal)
        plays = [a for a in legal if a["type"] == "play"]
        flips = [a for a in legal if a["type"] == "flip"]
        pick_up = [a for a in legal if a["type"] == "pick_up"]
        if view.get("flipped"):
            return self.play_flipped(view, plays) or pick_up[0]
        settler = self.settler(view)
        if settler is not None and settler != self.seat:
            return self.help_settler(view, legal, settler)
        towers = [a for a in plays if self.rank_of(view, a) == TOWER_RANK]
        ordinary = [a for a in plays if self.rank_of(view, a) != TOWER_RANK]
        arena_size = len(view.get("arena") or [])
        hand_size = len(view.get("hand") or [])
        pressing = self.round_turns >= PRESS_TURNS_PER_SEAT * self.seats
        if towers and arena_size and (pressing or not ordinary):
            return towers[0]  # TO-7: a reset beats feeding a cycle (or a pick-up)
        if flips and (not ordinary or (arena_size == 0 and hand_size <= FLIP_HAND_LIMIT)):
            if not (towers and arena_size >= TOWER_GUARD_ARENA):
                return flips[0]
        if ordinary:
            ranked = sorted(ordinary, key=lambda a: self.score(view, a), reverse=True)
            return self.vary_on_repeat(view, ranked)
        if towers:
            return towers[0]
        return pick_up[0] if pick_up else legal[0]

    # ---- settling a round that does not end

    def settler(self, view: SeatView) -> int | None:
        """Once the round has run long: the seat with the fewest cards left, lowest among equals."""
        if self.round_turns < SETTLE_TURNS_PER_SEAT * self.seats:
            return None
        layouts = [layout for layout in view.get("seats") or [] if isinstance(layout.get("seat"), int)]
        if not layouts:
            return None
        nearest = min(layouts, key=lambda layout: (int(layout.get("cards_left") or 0), int(layout["seat"])))
        return int(nearest["seat"])

    def help_settler(self, view: SeatView, legal: list[dict[str, Json]], settler: int) -> dict[str, Json]:
        """Go out if possible; else leave the settler an empty arena (pick up) or a high top to follow."""
        going_out = [a for a in legal if a["type"] == "play" and self.size(a) == self.cards_left(view)]
        if going_out:
            return going_out[0]
        return max(legal, key=lambda a: self.help_value(view, a, settler))

    def help_value(self, view: SeatView, action: Mapping[str, Json], settler: int) -> tuple[int, float]:
        after = self.mover_after(view, action)
        if action["type"] == "pick_up":
            return (3, 0.0) if after == settler else (0, 0.0)
        if action["type"] == "flip" or after == self.seat:
            return (1, 0.0)  # a clear or a flip: this seat moves again
        shed = self.score(view, action)
        if after == settler:
            return (2, shed + SETTLE_LEAD_WEIGHT * self.followable(view, action))
        return (2, shed)

    def followable(self, view: SeatView, action: Mapping[str, Json]) -> int:
        """How many ranks may follow this play (TO-6, TO-13): higher tops are easier to follow."""
        rank = self.rank_of(view, action)
        if rank == HIGH_SEVEN and "high_sevens" in (view.get("variations") or []):
            return 1 + sum(value > RANK_VALUE[HIGH_SEVEN] for value in RANK_VALUE.values())
        return RANK_VALUE[rank]

    def mover_after(self, view: SeatView, action: Mapping[str, Json]) -> int:
        """The seat to move once this action is done (TO-6, TO-7 go again; TO-12 skip; TO-14 reverse)."""
        way = -1 if view.get("direction") == "right" else 1
        if action["type"] == "flip":
            return self.seat
        if action["type"] == "pick_up":
            return (self.seat + way) % self.seats
        if self.clears(view, action):
            return self.seat
        rank = self.rank_of(view, action)
        variations = view.get("variations") or []
        if rank == SKIP_RANK and "skip_sixes" in variations:
            return (self.seat + 2 * way) % self.seats
        if rank == REVERSE_RANK and "reverse_eights" in variations:
            return (self.seat - way) % self.seats
        return (self.seat + way) % self.seats

    def vary_on_repeat(self, view: SeatView, ranked: list[dict[str, Json]]) -> dict[str, Json]:
        """The best play, unless this exact position (own cards, arena, card counts) came back: then
        the best play not yet tried from it, so that a cycle of choices is not played again."""
        layouts = tuple(int(layout.get("cards_left") or 0) for layout in view.get("seats") or [])
        position = (tuple(sorted(self.own_cards(view))), tuple(view.get("arena") or []), layouts)
        self.positions[position] += 1
        tried = self.tried.setdefault(position, [])
        visits = self.positions[position]
        if visits <= REPEAT_LIMIT:
            choice = ranked[0]
        else:
            untried = [a for a in ranked if a not in tried]
            choice = untried[0] if untried else ranked[visits % len(ranked)]
        tried.append(choice)
        return choice

    def choose_setup(self, view: SeatView, legal: list[dict[str, Json]]) -> dict[str, Json]:
        """TO-5: face the leader (lowest total) so it must follow this seat; favour own variations."""
        totals = list(view.get("totals") or [0] * self.seats)
        others = [s for s in range(self.seats) if s != self.seat]
        leader = min(others, key=lambda s: (totals[s], s))
        left_distance = (leader - self.seat) % self.seats
        direction = "left" if left_distance <= self.seats - left_distance else "right"
        wanted: list[str] = []
        if view.get("variations_allowed"):
            held = Counter(card_rank(c) for c in self.own_cards(view))
            high = sum(n for r, n in held.items() if r in RANK_VALUE and RANK_VALUE[r] > RANK_VALUE["7"])
            if held["5"] >= VARIATION_MIN_CARDS:
                wanted.append("hot_fives")
            if held["6"] >= VARIATION_MIN_CARDS:
                wanted.append("skip_sixes")
            if held["7"] >= VARIATION_MIN_CARDS and high > sum(held.values()) // 2:
                wanted.append("high_sevens")
            if held["8"] >= VARIATION_MIN_CARDS:
                wanted.append("reverse_eights")
        for action in legal:
            if action.get("direction") == direction and list(action.get("variations") or []) == wanted:
                return action
        return legal[0]

    def play_flipped(self, view: SeatView, plays: list[dict[str, Json]]) -> dict[str, Json] | None:
        """TO-10: play the flipped card, with as many same-rank hand cards as fit, natural first."""
        if not plays:
            return None
        return max(plays, key=lambda a: (self.clears(view, a), self.size(a), -self.hot_fives(view, a)))

    def score(self, view: SeatView, action: Mapping[str, Json]) -> float:
        rank = self.rank_of(view, action)
        value = RANK_VALUE[rank]
        size = self.size(action)
        arena = list(view.get("arena_ranks") or [])
        count_after = size + (int(view.get("arena_count") or 0) if arena and arena[-1] == rank else 0)
        score = CARD_BONUS * size + FACE_UP_BONUS * len(action.get("up") or [])
        if size == self.cards_left(view):
            score += GOING_OUT_BONUS
        score += value * (LEAD_VALUE_WEIGHT if not arena else FOLLOW_VALUE_WEIGHT)  # shed high, keep low blockers
        if count_after >= CLEAR_COUNT:
            score += CLEAR_BONUS
        else:
            score -= HOT_FIVE_COST * self.hot_fives(view, action)
            copies_out = self.copies_out(view, rank)
            if copies_out == 0:
                score += SCARCE_BONUS
            elif count_after == CLEAR_COUNT - 1:
                score -= THIRD_CARD_RISK
            if self.next_opponent_threatens(view):
                score -= BLOCK_WEIGHT * value  # keep the arena low for a seat about to go out
        return score + self.random.random() * NOISE

    # ---- what the robot knows

    def own_cards(self, view: SeatView) -> list[str]:
        mine = self.my_layout(view)
        return list(view.get("hand") or []) + [c for c in mine.get("up") or [] if c]

    def my_layout(self, view: SeatView) -> Mapping[str, Json]:
        for layout in view.get("seats") or []:
            if layout.get("seat") == self.seat:
                return layout
        return {}

    def cards_left(self, view: SeatView) -> int:
        return int(self.my_layout(view).get("cards_left") or 0)

    def copies_out(self, view: SeatView, rank: str) -> int:
        """Copies of ``rank`` that may still reach the arena from someone else (TO-1 packs)."""
        total = COPIES_PER_PACK * int(view.get("packs") or 1)
        mine = sum(card_rank(c) == rank for c in self.own_cards(view))
        on_arena = sum(card_rank(c) == rank for c in view.get("arena") or [])
        return max(0, total - self.out_of_play[rank] - mine - on_arena)

    def next_opponent_threatens(self, view: SeatView) -> bool:
        way = 1 if view.get("direction") != "right" else -1
        following = (self.seat + way) % self.seats
        for layout in view.get("seats") or []:
            if layout.get("seat") == following:
                return int(layout.get("cards_left") or 0) <= THREAT_CARDS
        return False

    def rank_of(self, view: SeatView, action: Mapping[str, Json]) -> str:
        if isinstance(action.get("as"), str):
            return str(action["as"])
        cards = self.cards_of(view, action)
        return card_rank(cards[0]) if cards else TOWER_RANK

    def cards_of(self, view: SeatView, action: Mapping[str, Json]) -> list[str]:
        cards = [str(c) for c in action.get("hand") or []]
        up = self.my_layout(view).get("up") or []
        cards += [str(up[s]) for s in action.get("up") or [] if 0 <= s < len(up) and up[s]]
        flipped = view.get("flipped")
        if action.get("down") and isinstance(flipped, Mapping):
            cards.append(str(flipped.get("card")))
        return cards

    def hot_fives(self, view: SeatView, action: Mapping[str, Json]) -> int:
        if not isinstance(action.get("as"), str) or action["as"] == HOT_FIVE:
            return 0
        return sum(card_rank(c) == HOT_FIVE for c in self.cards_of(view, action))

    def clears(self, view: SeatView, action: Mapping[str, Json]) -> bool:
        rank = self.rank_of(view, action)
        if rank == TOWER_RANK:
            return True
        arena = list(view.get("arena_ranks") or [])
        on_top = int(view.get("arena_count") or 0) if arena and arena[-1] == rank else 0
        return on_top + self.size(action) >= CLEAR_COUNT

    @staticmethod
    def size(action: Mapping[str, Json]) -> int:
        return sum(len(action.get(key) or []) for key in ("hand", "up", "down"))
