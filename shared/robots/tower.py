"""A robot for `tower` (FOUR DOWN, the Stone Tower shedding game, rules/tower.md).

It sees only its seat's events and views. It remembers, per round, which cards left play (cleared
arenas, so it knows which ranks are scarce) and which cards each opponent publicly picked up. Its
play: start arenas with its hardest cards (high ranks), shed as many cards of a rank as it can,
complete fours to go again, avoid leaving a third card on top when copies are still out, block an
opponent close to going out by playing low, keep Tower 4s for when a pick-up threatens, spend Hot
Fives only when they clear, and flip Four Down cards when the arena is empty or nothing else plays.

Limits: it does not model opponents' hands beyond what they picked up, nor plan several turns
ahead. Every choice is taken from the engine's ``legal`` list.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from shared.games.base import Json, SeatView
from shared.games.cards import rank as card_rank
from shared.games.rng import generator

TOWER_RANK = "4"  # TO-1
HOT_FIVE = "5"  # TO-11
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
BLOCK_WEIGHT = 4.0
TOWER_GUARD_ARENA = 3  # a pick-up of this many cards is worth a Tower 4
FLIP_HAND_LIMIT = 2  # with so few hand cards left, an empty arena is the time to flip
NOISE = 0.25  # breaks ties between equal plays, seeded
REPEAT_LIMIT = 2  # a position met this often means play is cycling (the ace blocks): vary the choice
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

    # ---- memory

    def observe(self, event: Mapping[str, Json]) -> None:
        kind = event.get("kind")
        if kind == "round_started":
            self.out_of_play = Counter()
            self.picked_up = {}
            self.positions = Counter()
        elif kind == "arena_cleared":
            self.out_of_play.update(card_rank(str(c)) for c in event.get("cards") or [])
        elif kind == "picked_up" and isinstance(event.get("seat"), int):
            held = self.picked_up.setdefault(int(event["seat"]), Counter())
            held.update(card_rank(str(c)) for c in event.get("cards") or [])
        elif kind == "played" and isinstance(event.get("seat"), int):
            held = self.picked_up.get(int(event["seat"]))
            if held is not None:
                held.subtract(card_rank(str(c)) for c in event.get("cards") or [])
                held += Counter()  # drop counts at or below zero

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
        towers = [a for a in plays if self.rank_of(view, a) == TOWER_RANK]
        ordinary = [a for a in plays if self.rank_of(view, a) != TOWER_RANK]
        arena_size = len(view.get("arena") or [])
        hand_size = len(view.get("hand") or [])
        if flips and (not ordinary or (arena_size == 0 and hand_size <= FLIP_HAND_LIMIT)):
            if not (towers and arena_size >= TOWER_GUARD_ARENA):
                return flips[0]
        if ordinary:
            if self.cycling(view):
                return ordinary[self.random.randrange(len(ordinary))]
            return max(ordinary, key=lambda a: self.score(view, a))
        if towers:
            return towers[0]
        return pick_up[0] if pick_up else legal[0]

    def cycling(self, view: SeatView) -> bool:
        """Whether this exact position (own cards, arena, card counts) keeps coming back."""
        layouts = tuple(int(layout.get("cards_left") or 0) for layout in view.get("seats") or [])
        position = (tuple(sorted(self.own_cards(view))), tuple(view.get("arena") or []), layouts)
        self.positions[position] += 1
        return self.positions[position] > REPEAT_LIMIT

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
        score += value * (2.0 if not arena else 1.0)  # shed hard (high) cards while they may go
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
