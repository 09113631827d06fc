"""The one engine of the golf family (four_down, golf, cambio, cabo), configured by a rule table.

``GolfFamilyEngine(rules)`` implements ``shared.games.base.Game``. It is pure: every input makes a
new ``FamilyState`` and the events it causes, each with its audience. Rules code cites the ids
of ``rules/four_down.md`` (FD-), ``rules/golf.md`` (GO-) and ``rules/cambio.md`` (CA-).

A turn: ``call``; or ``draw`` then ``replace`` / ``discard`` / ``power`` (then ``swap`` or
``pass`` for a look-then-swap power) / ``match`` (then ``give`` after a correct match of another
seat's card). Golf Extreme's ``burn`` comes before the draw; cambio's ``snap`` may come from any
seat while a snap window is open, and a correct snap of another seat's card is paid with a
``give`` that must be that seat's next action. The family has no timers (the turn clock is the
table service's: ``clock_actions``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from shared.games.base import (
    BAD_OPTION,
    BAD_TARGET,
    ILLEGAL,
    NOT_YOUR_TURN,
    ROUND_OVER,
    STALE,
    Action,
    Event,
    Json,
    MatchResult,
    Rejection,
    SeatView,
    Setup,
    private,
    public,
)
from shared.games.golf_family import legal, views
from shared.games.golf_family.actions import Parsed, parse
from shared.games.golf_family.deal import deal_round, exact_deal
from shared.games.golf_family.rules import (
    BURN,
    CLEAR_STARTS_FINAL_TURNS,
    HOST,
    LOOK_OTHER,
    LOOK_OWN,
    LOOK_THEN_SWAP_ANY_SEAT,
    LOOK_THEN_SWAP_OWN_OTHER,
    MATCH,
    SNAP,
    STOCK_OUT_ENDS_ROUND,
    STOCK_OUT_RESHUFFLES,
    SWAP_ANY,
    SWAP_OWN_OTHER,
    FamilyRules,
    rank_of,
)
from shared.games.golf_family.scoring import match_over, round_scores, standings, winners
from shared.games.golf_family.state import ROUND_OVER as ROUND_OVER_PHASE
from shared.games.golf_family.state import (
    FINAL_TURNS,
    MATCH_OVER,
    PLAYING,
    FamilyState,
    PendingChoice,
    PendingGive,
    Target,
    next_seat,
    seats_after,
)
from shared.games.rng import shuffled

Outcome = tuple[FamilyState, list[Event]]


class GolfFamilyEngine:
    """A golf-family game, entirely described by its ``FamilyRules``."""

    def __init__(self, rules: FamilyRules) -> None:
        self.rules = rules
        self.id = rules.game_id
        self.min_seats = rules.min_seats
        self.max_seats = rules.max_seats
        self._handlers: dict[str, Callable[[FamilyState, int, Parsed], Outcome]] = {
            "draw": self._draw,
            "replace": self._replace,
            "discard": self._discard,
            "power": self._power,
            "swap": self._swap,
            "pass": self._pass,
            MATCH: self._match,
            BURN: self._burn,
            SNAP: self._snap,
            "give": self._give,
            "call": self._call,
            "move_finish_line": self._move_finish_line,
        }

    # --- the Game protocol -------------------------------------------------------------------

    def check_options(self, options: dict[str, Json], seats: int) -> dict[str, Json]:
        return self.rules.check_options(options, seats)

    def start(self, setup: Setup) -> Outcome:
        options = self.check_options(dict(setup.options), setup.seats)
        first = 0 if setup.first is None else setup.first  # FD-2, GO-2, CA-2
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < setup.seats:
            raise Rejection(BAD_OPTION, "first must be a seat number")
        rules = self.rules
        for deal in setup.deals:  # a bad exact deal is refused now, not when its round comes
            exact_deal(rules, setup.seats, deal)
        finish_line = options.get(rules.finish_line_option) if rules.finish_line_option else rules.fixed_finish_line
        round_limit = options.get(rules.rounds_option) if rules.rounds_option else None
        state = FamilyState(
            game_id=self.id,
            options=options,
            seats=setup.seats,
            seed=setup.seed,
            deals=tuple(setup.deals),
            first=first,
            round=0,
            phase=PLAYING,
            hands=(),
            stock=(),
            discard=(),
            turn=first,
            finish_line=finish_line,
            round_limit=round_limit,
            totals=(0,) * setup.seats,
        )
        return self._deal(state, 1, [])

    def apply(self, state: FamilyState, seat: int, action: Action, now: float) -> Outcome:
        parsed = parse(action)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
            raise Rejection(ILLEGAL, "no such seat at this table")
        if state.over:
            raise Rejection(ROUND_OVER, "the match is over")
        return self._handlers[parsed.type](state, seat, parsed)

    def next_deadline(self, state: FamilyState) -> float | None:
        return None  # no timer in the family: the turn clock belongs to the table service

    def advance(self, state: FamilyState, now: float) -> Outcome:
        return state, []

    def to_move(self, state: FamilyState) -> int | None:
        return None if state.over else state.turn

    def legal_actions(self, state: FamilyState, seat: int) -> list[dict[str, Json]]:
        return legal.legal_actions(self.rules, state, seat)

    def clock_actions(self, state: FamilyState, seat: int) -> list[dict[str, Json]]:
        return legal.clock_actions(self.rules, state, seat)

    def view(self, state: FamilyState, seat: int | None) -> SeatView:
        return views.seat_view(self.rules, state, seat)

    def result(self, state: FamilyState) -> MatchResult | None:
        if not state.over:
            return None
        return MatchResult(standings=standings(state.totals), rounds=len(state.history), round_scores=state.history)

    def inspect(self, state: FamilyState) -> dict[str, Json]:
        return views.inspect(state)

    # --- checks shared by the handlers ------------------------------------------------------

    def _require_turn(self, state: FamilyState, seat: int) -> None:
        if state.give_owed_by(seat) is not None:
            raise Rejection(ILLEGAL, "give a card to fill the hole first")  # FD-8, CA-9
        if seat != state.turn:
            raise Rejection(NOT_YOUR_TURN, "it is not your turn")

    def _require_turn_start(self, state: FamilyState, seat: int) -> None:
        self._require_turn(state, seat)
        if state.drawn is not None or state.choice is not None:
            raise Rejection(ILLEGAL, "you have already drawn this turn")  # FD-3

    def _require_stock_card(self, state: FamilyState, seat: int) -> str:
        self._require_turn(state, seat)
        if state.choice is not None:
            raise Rejection(ILLEGAL, "finish the power first: swap or pass")
        if state.drawn is None or state.drawn_from != "stock":
            raise Rejection(ILLEGAL, "only a card drawn from the stock may do that")  # FD-4, FD-5
        return state.drawn

    def _require_claim(self, state: FamilyState, kind: str) -> None:
        if self.rules.claim_in_play(state.options) != kind:
            raise Rejection(ILLEGAL, f"{kind} is not part of this game")

    @staticmethod
    def _filled_target(state: FamilyState, target: Target) -> str:
        """The card at ``target`` if it names a slot holding one; else ``bad_target``."""
        seat, slot = target
        if not 0 <= seat < state.seats or not 0 <= slot < len(state.hands[seat]):
            raise Rejection(BAD_TARGET, "no such slot")
        card = state.hands[seat][slot]
        if card is None:
            raise Rejection(BAD_TARGET, "that slot is empty")
        return card

    # --- turn actions -----------------------------------------------------------------------

    def _call(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        self._require_turn_start(state, seat)
        if state.caller is not None or state.final_seats is not None:
            raise Rejection(ILLEGAL, "the round is already ending")  # FD-11, GO-4, CA-13
        state = replace(state, caller=seat, final_seats=seats_after(seat, state.seats), phase=FINAL_TURNS)
        state = replace(state, window_open=False, window_opener=None)  # CA-7: a call closes the window
        return self._end_turn(state, [public("called", seat=seat)])

    def _draw(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        self._require_turn_start(state, seat)
        state = replace(state, window_open=False, window_opener=None)  # CA-7: a draw closes the window
        if action.source == "discard":
            if not state.discard:
                raise Rejection(ILLEGAL, "the discard pile is empty")
            if not state.filled_slots(seat):
                raise Rejection(ILLEGAL, "a discard draw must replace a card, and your row is empty")  # FD-4
            top = state.discard[-1]
            state = replace(state, discard=state.discard[:-1], drawn=top, drawn_from="discard")
            return state, [public("drew", seat=seat, card=top, **{"from": "discard"})]  # FD-15
        events: list[Event] = []
        state, card = self._take_from_stock(state, events)
        if card is None:
            return self._end_round(state, events, "stock_out")  # GO-6, CA-15: nothing to shuffle
        state = replace(state, drawn=card, drawn_from="stock")
        events += [public("drew", seat=seat, **{"from": "stock"}), private(seat, "drawn_card", card=card)]  # FD-15
        return state, events

    def _replace(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        self._require_turn(state, seat)
        if state.drawn is None or state.choice is not None:
            raise Rejection(ILLEGAL, "draw a card first")
        slot = action.slot_value()
        old = self._filled_target(state, (seat, slot))  # rules/README.md: a replace names a slot holding a card
        source = state.drawn_from
        state = state.with_slot((seat, slot), state.drawn).onto_pile(old)  # FD-4, FD-5, GO-3, CA-3
        events = [public("replaced", seat=seat, slot=slot, card=old, **{"from": source})]
        return self._end_turn(self._open_window(state, seat), events)

    def _discard(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        card = self._require_stock_card(state, seat)
        state = state.onto_pile(card)
        return self._end_turn(self._open_window(state, seat), [public("discarded", seat=seat, card=card)])

    def _power(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        card = self._require_stock_card(state, seat)
        power = self.rules.power_of(card, state.options)
        if power is None:
            raise Rejection(ILLEGAL, "this card has no power")  # FD-6, GO-8, CA-4, CA-5
        targets = self._power_targets(state, seat, power, action.targets)
        state = self._open_window(replace(state.onto_pile(card), drawn=None, drawn_from=None), seat)
        wire_targets = [list(target) for target in targets]
        events = [public("power_used", seat=seat, card=card, power=power, targets=wire_targets)]  # FD-15
        if power in (SWAP_ANY, SWAP_OWN_OTHER):
            return self._end_turn(self._swapped(state, targets[0], targets[1]), events)
        looked = targets[0]
        events.append(self._look(state, seat, looked))
        if power in (LOOK_OWN, LOOK_OTHER):
            return self._end_turn(state, events)
        return replace(state, choice=PendingChoice(seat=seat, looked=looked, power=power)), events

    def _power_targets(self, state: FamilyState, seat: int, power: str, targets: tuple[Target, ...]) -> tuple[Target, ...]:
        """The targets, checked for this power (FD-6, GO-8, CA-4, CA-5); else ``bad_target``."""
        wanted = 2 if power in (SWAP_ANY, SWAP_OWN_OTHER) else 1
        if len(targets) != wanted:
            raise Rejection(BAD_TARGET, f"this power takes {wanted} target(s)")
        for target in targets:
            self._filled_target(state, target)
        owners = [target[0] for target in targets]
        if power == LOOK_OWN and owners != [seat]:
            raise Rejection(BAD_TARGET, "this power looks at one of your own cards")
        if power == LOOK_OTHER and owners == [seat]:
            raise Rejection(BAD_TARGET, "this power looks at another seat's card")
        if power == SWAP_ANY and targets[0] == targets[1]:
            raise Rejection(BAD_TARGET, "swap two different slots")
        if power == SWAP_OWN_OTHER and owners.count(seat) != 1:
            raise Rejection(BAD_TARGET, "swap one of your cards with one of another seat's")
        return targets

    @staticmethod
    def _look(state: FamilyState, seat: int, target: Target) -> Event:
        """A private reveal of ``target`` to ``seat`` (FD-15: the look itself is public)."""
        return private(seat, "card_seen", reveal=True, target=list(target), card=state.card_at(target))

    @staticmethod
    def _swapped(state: FamilyState, first: Target, second: Target) -> FamilyState:
        card_first, card_second = state.card_at(first), state.card_at(second)
        return state.with_slot(first, card_second).with_slot(second, card_first)

    def _swap(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        choice = self._require_choice(state, seat)
        if action.targets.count(choice.looked) != 1 or len(action.targets) != 2:
            raise Rejection(BAD_TARGET, "swap the card you looked at with one other card")
        other = next(target for target in action.targets if target != choice.looked)
        if choice.gone or state.card_at(choice.looked) is None:
            raise Rejection(STALE, "the card you looked at has gone")  # CA-11: snapped meanwhile
        self._filled_target(state, other)
        if choice.power == LOOK_THEN_SWAP_ANY_SEAT and other[0] == choice.looked[0]:
            raise Rejection(BAD_TARGET, "swap with a card of a different seat")  # CA-4
        if choice.power == LOOK_THEN_SWAP_OWN_OTHER and (other[0] == seat) == (choice.looked[0] == seat):
            raise Rejection(BAD_TARGET, "swap one of your cards with one of another seat's")  # CA-6
        state = replace(self._swapped(state, choice.looked, other), choice=None)
        events = [public("swapped", seat=seat, targets=[list(choice.looked), list(other)])]  # CA-17
        return self._end_turn(state, events)

    def _pass(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        self._require_choice(state, seat)
        return self._end_turn(replace(state, choice=None), [public("passed", seat=seat)])  # CA-17

    def _require_choice(self, state: FamilyState, seat: int) -> PendingChoice:
        self._require_turn(state, seat)
        if state.choice is None or state.choice.seat != seat:
            raise Rejection(ILLEGAL, "there is no look to follow with a swap")
        return state.choice

    # --- claims: match (four_down), burn (golf extreme), snap (cambio, cabo) ------------------

    def _match(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        self._require_claim(state, MATCH)
        card = self._require_stock_card(state, seat)
        target = action.target_value()
        claimed = self._filled_target(state, target)  # FD-7
        state = replace(state.onto_pile(card), drawn=None, drawn_from=None)
        if rank_of(claimed) != rank_of(card):  # FD-9
            events = [public("match_failed", seat=seat, target=list(target), card=card, revealed=claimed)]
            state, ended = self._penalty_cards(state, seat, 1, events)
            return (state, events) if ended else self._end_turn(state, events)
        state = state.onto_pile(claimed).with_slot(target, None)  # FD-8: the matched card is the new top
        events = [public("matched", seat=seat, target=list(target), card=card, matched=claimed)]
        if target[0] != seat and state.filled_slots(seat):
            return self._owe_give(state, seat, target, events)
        return self._after_row_change(state, seat, events)

    def _burn(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        self._require_claim(state, BURN)
        self._require_turn_start(state, seat)
        if state.burned:
            raise Rejection(ILLEGAL, "one burn per turn")  # GO-9
        if not state.discard:
            raise Rejection(ILLEGAL, "there is no discard to burn onto")
        target = action.target_value()
        claimed = self._filled_target(state, target)
        state = replace(state, burned=True)
        if rank_of(claimed) != rank_of(state.discard[-1]):  # GO-10: nothing is revealed
            events = [public("burn_failed", seat=seat, target=list(target))]
            state, _ = self._penalty_cards(state, seat, 1, events)
            return state, events
        state = state.with_slot(target, None).onto_pile(claimed)  # GO-9
        events = [public("burned", seat=seat, target=list(target), card=claimed)]
        if target[0] != seat and state.filled_slots(seat):
            return self._owe_give(state, seat, target, events)
        return self._after_row_change(state, seat, events)

    def _snap(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        self._require_claim(state, SNAP)
        if state.give_owed_by(seat) is not None:
            raise Rejection(ILLEGAL, "give a card to fill the hole first")  # CA-9
        target = action.target_value()
        owner, slot = target
        if not 0 <= owner < state.seats or not 0 <= slot < len(state.hands[owner]):
            raise Rejection(BAD_TARGET, "no such slot")
        if not state.window_open or not state.discard:
            raise Rejection(STALE, "the snap window has closed")  # CA-11
        claimed = state.card_at(target)
        if claimed is None:
            raise Rejection(STALE, "that slot is already empty")  # CA-11
        if owner == seat and state.window_opener == seat:
            raise Rejection(ILLEGAL, "you may not snap your own card onto a card you put on the pile")  # CA-8
        if rank_of(claimed) != rank_of(state.discard[-1]):  # CA-10
            reveal = {"revealed": claimed} if state.options.get("wrong_snap_reveal") else {}
            events = [public("snap_failed", seat=seat, target=list(target), **reveal)]
            count = int(state.options.get("wrong_snap_cards", 1))
            state, _ = self._penalty_cards(state, seat, count, events)
            return state, events
        state = state.with_slot(target, None).onto_pile(claimed)  # CA-9: the window stays open
        # CA-8 bars snapping your own card onto the card you put on the pile in your turn; a snapped
        # card now covers it, and a snapped card bars nobody.
        state = replace(state, window_opener=None)
        if state.choice is not None and state.choice.looked == target:  # CA-4: "that card" is gone for good
            state = replace(state, choice=replace(state.choice, gone=True))
        events = [public("snapped", seat=seat, target=list(target), card=claimed)]  # CA-17
        if owner != seat and state.filled_slots(seat):
            return self._owe_give(state, seat, target, events)
        return self._after_row_change(state, seat, events)

    def _owe_give(self, state: FamilyState, seat: int, hole: Target, events: list[Event]) -> Outcome:
        state = replace(state, gives=state.gives + (PendingGive(giver=seat, hole=hole),))
        events.append(public("give_owed", seat=seat, hole=list(hole)))
        return state, events

    def _give(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        owed = state.give_owed_by(seat)
        if owed is None:
            raise Rejection(ILLEGAL, "you owe no card")
        slot = action.slot_value()
        self._filled_target(state, (seat, slot))
        state, event = self._given(state, owed, slot)
        return self._after_row_change(state, seat, [event])

    @staticmethod
    def _given(state: FamilyState, owed: PendingGive, slot: int, automatic: bool = False) -> tuple[FamilyState, Event]:
        """FD-8, GO-9, CA-9: the giver's card fills the hole, unseen; public as a slot move."""
        card = state.hands[owed.giver][slot]
        state = state.with_slot((owed.giver, slot), None).with_slot(owed.hole, card)
        state = replace(state, gives=tuple(give for give in state.gives if give is not owed))
        data = {"seat": owed.giver, "slot": slot, "to": list(owed.hole), "automatic": automatic}
        return state, public("gave", **data)

    def _after_row_change(self, state: FamilyState, seat: int, events: list[Event]) -> Outcome:
        """After a claim settled (and any give): a cleared row, then the rest of the turn."""
        cleared = not state.filled_slots(seat)
        if self.rules.clear_rule == CLEAR_STARTS_FINAL_TURNS:  # GO-11: the turn goes on unless clear
            return self._cleared_with_final_turns(state, seat, events) if cleared else (state, events)
        if cleared:  # FD-10, CA-12: the round ends at once; no call is judged
            events.append(public("cleared", seat=seat))
            return self._end_round(state, events, "cleared", judge_call=False)
        if self.rules.claim == MATCH:
            return self._end_turn(state, events)  # FD-8: the match ends the turn
        return state, events  # GO-9, CA-9: a burn or snap is not the end of a turn

    def _cleared_with_final_turns(self, state: FamilyState, seat: int, events: list[Event]) -> Outcome:
        """GO-11: the clearer's turn ends and every other seat gets one final turn."""
        events.append(public("cleared", seat=seat))
        if state.final_seats is None:
            state = replace(state, final_seats=(seat,) + seats_after(seat, state.seats), phase=FINAL_TURNS)
        return self._end_turn(state, events)

    def _penalty_cards(self, state: FamilyState, seat: int, count: int, events: list[Event]) -> tuple[FamilyState, bool]:
        """FD-9, GO-10, CA-10: unseen cards from the stock into new slots. True if the round ended."""
        for _ in range(count):
            state, card = self._take_from_stock(state, events)
            if card is None:
                if self.rules.stock_out == STOCK_OUT_RESHUFFLES:  # GO-6, CA-15: nothing to shuffle
                    state, round_events = self._end_round(state, [], "stock_out")
                    events.extend(round_events)
                    return state, True
                return state, False  # FD-9: no penalty card from an empty stock
            state, slot = state.with_new_slot(seat, card)
            events.append(public("penalty_card", seat=seat, slot=slot))
        return state, False

    def _take_from_stock(self, state: FamilyState, events: list[Event]) -> tuple[FamilyState, str | None]:
        """The top stock card; GO-6, CA-15: an empty stock is first rebuilt from the older discards."""
        if not state.stock and self.rules.stock_out == STOCK_OUT_RESHUFFLES and len(state.discard) > 1:
            pile = shuffled(state.discard[:-1], state.seed, "reshuffle", state.round, state.reshuffles)
            state = replace(state, stock=tuple(pile), discard=state.discard[-1:], reshuffles=state.reshuffles + 1)
            events.append(public("stock_reshuffled", stock_size=len(pile)))
        if not state.stock:
            return state, None
        return replace(state, stock=state.stock[1:]), state.stock[0]

    def _open_window(self, state: FamilyState, seat: int) -> FamilyState:
        """CA-7: a card put face up on the pile during play opens a snap window; CA-8 remembers who."""
        if self.rules.claim_in_play(state.options) != SNAP:
            return state
        return replace(state, window_open=True, window_opener=seat)

    # --- the host's finish line (CA-16) -----------------------------------------------------

    def _move_finish_line(self, state: FamilyState, seat: int, action: Parsed) -> Outcome:
        if not self.rules.move_finish_line or state.finish_line is None:
            raise Rejection(ILLEGAL, "this table has no finish line to move")
        if seat != state.options.get(HOST, 0):
            raise Rejection(ILLEGAL, "only the host may move the finish line")
        if state.give_owed_by(seat) is not None:
            raise Rejection(ILLEGAL, "give a card to fill the hole first")  # CA-9: the give comes first
        to = action.to_value()
        if to < max(state.totals) or to < 1:
            raise Rejection(ILLEGAL, "the finish line may not go below the highest total")
        state = replace(state, finish_line=to)
        return state, [public("finish_line_moved", seat=seat, to=to)]

    # --- turns and rounds -------------------------------------------------------------------

    def _end_turn(self, state: FamilyState, events: list[Event]) -> Outcome:
        state = replace(state, drawn=None, drawn_from=None, burned=False, choice=None)
        if self.rules.stock_out == STOCK_OUT_ENDS_ROUND and not state.stock:
            return self._end_round(state, events, "stock_out")  # FD-12
        if state.final_seats is not None:  # FD-11, GO-4, CA-13
            remaining = tuple(seat for seat in state.final_seats if seat != state.turn)
            if not remaining:
                return self._end_round(state, events, "final_turns_done")
            state = replace(state, final_seats=remaining, turn=remaining[0])
        else:
            state = replace(state, turn=next_seat(state.turn, state.seats))
        events.append(public("turn_started", seat=state.turn))
        return state, events

    def _end_round(self, state: FamilyState, events: list[Event], reason: str, judge_call: bool = True) -> Outcome:
        for owed in state.gives:  # a give still owed when the round ends is played as the clock would
            filled = state.filled_slots(owed.giver)
            if filled:
                state, event = self._given(state, owed, filled[0], automatic=True)
                events.append(event)
        if state.drawn is not None:
            events.append(public("discarded", seat=state.turn, card=state.drawn))
            state = state.onto_pile(state.drawn)
        scores = round_scores(self.rules, state.hands, state.caller, judge_call)
        totals = tuple(total + score for total, score in zip(state.totals, scores))
        rows = [list(row) for row in state.hands]
        events.append(  # FD-15: at round end every row is public
            public(
                "round_ended",
                round=state.round,
                reason=reason,
                hands=rows,
                scores=list(scores),
                totals=list(totals),
                caller=state.caller,
            )
        )
        state = replace(
            state,
            phase=ROUND_OVER_PHASE,
            totals=totals,
            round_scores=scores,
            history=state.history + (scores,),
            last_round_hands=state.hands,
            gives=(),
            choice=None,
            drawn=None,
            drawn_from=None,
            window_open=False,
            window_opener=None,
        )
        if match_over(totals, state.round, state.finish_line, state.round_limit):  # FD-14, GO-7, CA-16
            best = winners(totals)
            state = replace(state, phase=MATCH_OVER, winners=best)
            events.append(public("match_ended", totals=list(totals), winners=list(best)))
            return state, events
        return self._deal(state, state.round + 1, events)  # rules/README.md "Rounds": dealt at once

    def _deal(self, state: FamilyState, round_number: int, events: list[Event]) -> Outcome:
        rules = self.rules
        deal = deal_round(rules, state.seats, state.seed, round_number, state.deals)
        starter = (state.first + round_number - 1) % state.seats  # FD-2, GO-2, CA-2
        state = replace(
            state,
            round=round_number,
            phase=PLAYING,
            hands=deal.hands,
            stock=deal.stock,
            discard=deal.discard,
            turn=starter,
            drawn=None,
            drawn_from=None,
            burned=False,
            caller=None,
            final_seats=None,
            gives=(),
            choice=None,
            window_open=False,  # CA-7: the card turned at the deal opens no window
            window_opener=None,
            reshuffles=0,
        )
        events.append(
            public(
                "round_started",
                round=round_number,
                starter=starter,
                row_sizes=[len(row) for row in deal.hands],
                discard=list(deal.discard),
                stock_size=len(deal.stock),
            )
        )
        for seat, row in enumerate(deal.hands):  # FD-1, GO-1, CA-1: shown once, privately
            shown = [{"slot": slot, "card": row[slot]} for slot in rules.first_look_slots if slot < len(row) and row[slot]]
            events.append(private(seat, "first_look", reveal=True, round=round_number, cards=shown))
        return state, events
