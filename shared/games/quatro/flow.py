"""How a Quatro round unfolds over time: dealing, starting play, ending, reshuffling, the clock.

Purpose: the transitions every path shares (an action or a timer may end a round, start play or
settle a vote), and the table's timers (QU-4, QU-6, QU-7, QU-10, QU-11, QU-12) fired in time order.
Limits: pure functions from a state and a time to a new state and its events; the checks that
decide whether a player's action is allowed live in ``shared.games.quatro.engine``.
"""

from __future__ import annotations

from dataclasses import replace

from shared.games.base import Event, Json, private, public, to_seats
from shared.games.rng import generator
from shared.games.quatro.rules import (
    SIGNALS,
    Deal,
    deck,
    members,
    quartet_rank,
    seeded_deal,
)
from shared.games.quatro.state import (
    MATCH_OVER,
    PLAYING,
    ROUND_OVER,
    SIGNALS_PHASE,
    Call,
    FloorHold,
    QuatroState,
    replaced_at,
)

SIGNALS_SECONDS = 30.0  # QU-4: the round starts at the latest 30 s after it was set up
ROUND_SECONDS = 180.0  # QU-10: no call within 3 minutes of the round's start is a blank round
PAUSE_SECONDS = 30.0  # QU-11: the pause between rounds, which the host may cut short
EXCHANGE_COOLDOWN_SECONDS = 2.0  # QU-6: after a successful exchange
GESTURE_SPACING_SECONDS = 2.0  # QU-7: between two floor gestures (take, release) of one player
ANNOUNCE_EVERY_SECONDS = 5.0  # QU-7: a shown emoji is announced again every 5 s
VOTE_SECONDS = 20.0  # QU-12: every other connected human must say yes within 20 s
PROPOSAL_SPACING_SECONDS = 30.0  # QU-12: 30 s between two proposals at a table
TARGET_POINTS = 5  # QU-14: first team to 5 points
# Deadlines are kept to the nanosecond: a float sum drifts (30.01 + 2 is 32.010000000000005), and a
# deadline must fall exactly when the rule says, so "2 s after 30.01" is 32.01, not a hair later.
TIME_DIGITS = 9

Events = list[Event]


def after(at: float, seconds: float) -> float:
    """The instant ``seconds`` after ``at``, exactly (QU-4, QU-6, QU-7, QU-10, QU-11, QU-12): the
    sum rounded to ``TIME_DIGITS``, so that a timer due "2 s later" fires at the decimal instant."""
    return round(at + seconds, TIME_DIGITS)


# Timer kinds, in the order they fire when due at the same instant: the small private notices
# first, then the announcements, then what can change the round.
_EXCHANGE_READY, _GESTURE_READY, _ANNOUNCE, _VOTE_CLOSES, _PHASE_ENDS = range(5)


# --- dealing -------------------------------------------------------------------------------------


def deal_for_round(state: QuatroState, number: int) -> Deal:
    """Round ``number``'s deal: the set-up's fixed deal if it has one, else seeded (QU-2)."""
    if number <= len(state.deals):
        return state.deals[number - 1]
    return seeded_deal(deck(state.seats), state.seats, state.seed, "deal", number)


def hand_events(state: QuatroState) -> Events:
    """Each seat is told its own hand, privately (QU-16)."""
    return [private(seat, "hand_dealt", hand=list(hand)) for seat, hand in enumerate(state.hands)]


def setup_round(state: QuatroState, at: float) -> tuple[QuatroState, Events]:
    """Deal the next round and open its signal phase (QU-1, QU-2, QU-3, QU-4, QU-11)."""
    number = state.round + 1
    deal = deal_for_round(state, number)
    state = replace(
        state,
        phase=SIGNALS_PHASE,
        round=number,
        phase_since=at,
        hands=deal.hands,
        center=deal.center,
        redeals=deal.redeals,
        previous_signals=state.signals,  # QU-3: a new round needs a new signal
        signals=(None,) * state.teams,
        ready=state.robots,  # QU-4: robots are always ready
        floor=(None,) * state.seats,
        vote=None,
        reshuffled=False,
    )
    dealt = public(
        "round_dealt",
        round=number,
        center=list(deal.center),
        redeals=deal.redeals,  # QU-2: how many, never the value
        hands_with_three=deal.hands_with_three,
        starts_by=after(at, SIGNALS_SECONDS),
    )
    return state, [dealt, *hand_events(state)]


def drawn_signal(state: QuatroState, team: int) -> str:
    """QU-3: a seeded signal for a team that chose none, new for the team and unused this round."""
    taken = {signal for signal in state.signals if signal is not None} | {state.previous_signals[team]}
    candidates = [emoji for emoji in SIGNALS if emoji not in taken]
    return candidates[_seeded_index(state.seed, len(candidates), "signal", state.round, team)]


def _seeded_index(seed: int, size: int, *labels: object) -> int:
    return generator(seed, *labels).randrange(size)


def signal_told(team: int, signal: str, seats: int, **extra: Json) -> Event:
    """The one shape that tells a team its signal (``{"team", "signal"}``), to its two seats only."""
    return to_seats(members(team, seats), "team_signal", team=team, signal=signal, **extra)


# --- round flow ----------------------------------------------------------------------------------


def start_play(state: QuatroState, at: float) -> tuple[QuatroState, Events]:
    """QU-4: play begins; a team without a signal is given one (QU-3)."""
    events: Events = [public("round_started", round=state.round, ends_by=after(at, ROUND_SECONDS))]
    for team in range(state.teams):
        if state.signals[team] is None:
            signal = drawn_signal(state, team)
            state = replace(state, signals=replaced_at(state.signals, team, signal))
            events.append(signal_told(team, signal, state.seats, drawn=True))
    return replace(state, phase=PLAYING, phase_since=at), events


def start_play_if_all_ready(state: QuatroState, at: float) -> tuple[QuatroState, Events]:
    """QU-4: every connected human is ready (robots always are): play starts at once."""
    if state.phase == SIGNALS_PHASE and all(seat in state.ready for seat in state.connected_humans()):
        return start_play(state, at)
    return state, []


def call_json(call: Call | None) -> dict[str, Json] | None:
    if call is None:
        return None
    return {"kind": call.kind, "seat": call.seat, "team": call.team, "correct": call.correct}


def quartets_json(state: QuatroState) -> list[dict[str, Json]]:
    """QU-10: each quartet on the table, by seat and value."""
    found = []
    for seat, hand in enumerate(state.hands):
        value = quartet_rank(hand)
        if value is not None:
            found.append({"seat": seat, "value": value})
    return found


def end_round(state: QuatroState, at: float, scores: tuple[int, ...], call: Call) -> tuple[QuatroState, Events]:
    """QU-10: the round ends, every hand is shown; QU-14: maybe the match too."""
    totals = tuple(total + score for total, score in zip(state.totals, scores))
    state = replace(
        state,
        phase=ROUND_OVER,
        phase_since=at,
        totals=totals,
        round_scores=scores,
        history=(*state.history, scores),
        last_call=call,
        floor=(None,) * state.seats,
        vote=None,
    )
    events: Events = [
        public(
            "round_ended",
            round=state.round,
            call=call_json(call),
            hands=[list(hand) for hand in state.hands],
            center=list(state.center),
            quartets=quartets_json(state),
            round_scores=list(scores),
            totals=list(totals),
        )
    ]
    best = max(totals)
    if best >= TARGET_POINTS:  # QU-14: all teams on the best score win together
        winners = tuple(team for team, total in enumerate(totals) if total == best)
        state = replace(state, phase=MATCH_OVER, winners=winners)
        events.append(public("match_over", totals=list(totals), winners=list(winners)))
    return state, events


def reshuffle(state: QuatroState, at: float) -> tuple[QuatroState, Events]:
    """QU-12 passed: hands and centre reshuffled and redealt (QU-2); all else unchanged."""
    cards = [card for hand in state.hands for card in hand] + list(state.center)
    deal = seeded_deal(cards, state.seats, state.seed, "reshuffle", state.round)
    state = replace(state, hands=deal.hands, center=deal.center, redeals=deal.redeals, vote=None, reshuffled=True)
    done = public(
        "reshuffled",
        round=state.round,
        center=list(deal.center),
        redeals=deal.redeals,
        hands_with_three=deal.hands_with_three,
    )
    return state, [done, *hand_events(state)]


def refuse_reshuffle(state: QuatroState) -> tuple[QuatroState, Events]:
    proposer = state.vote.proposer if state.vote is not None else None
    return replace(state, vote=None), [public("reshuffle_refused", proposer=proposer)]


def settle_vote(state: QuatroState, at: float) -> tuple[QuatroState, Events]:
    """QU-12: the vote passes once every other connected human has said yes."""
    vote = state.vote
    if vote is None:
        return state, []
    voters = [seat for seat in state.connected_humans() if seat != vote.proposer]
    if all(seat in vote.accepted for seat in voters):
        return reshuffle(state, at)
    return state, []


# --- the clock -----------------------------------------------------------------------------------


def phase_deadline(state: QuatroState) -> float | None:
    """When the current phase ends by itself (QU-4, QU-10, QU-11); None once the match is over."""
    length = {SIGNALS_PHASE: SIGNALS_SECONDS, PLAYING: ROUND_SECONDS, ROUND_OVER: PAUSE_SECONDS}.get(state.phase)
    return None if length is None else after(state.phase_since, length)


def pending_timers(state: QuatroState) -> list[tuple[float, int, int]]:
    """Every running timer as (time, kind, seat), soonest first."""
    timers: list[tuple[float, int, int]] = []
    for seat in range(state.seats):
        exchange_free = state.exchange_free_at[seat]
        if exchange_free is not None:
            timers.append((exchange_free, _EXCHANGE_READY, seat))
        gesture_free = state.gesture_free_at[seat]
        if gesture_free is not None:
            timers.append((gesture_free, _GESTURE_READY, seat))
        hold = state.floor[seat]
        if hold is not None and hold.emoji is not None and hold.announce_at is not None:
            timers.append((hold.announce_at, _ANNOUNCE, seat))
    if state.vote is not None:
        timers.append((state.vote.closes_at, _VOTE_CLOSES, -1))
    deadline = phase_deadline(state)
    if deadline is not None:
        timers.append((deadline, _PHASE_ENDS, -1))
    return sorted(timers)


def _fire(state: QuatroState, kind: int, seat: int, at: float) -> tuple[QuatroState, Events]:
    if kind == _EXCHANGE_READY:  # QU-6
        state = replace(state, exchange_free_at=replaced_at(state.exchange_free_at, seat, None))
        return state, [private(seat, "exchange_ready")]
    if kind == _GESTURE_READY:  # QU-7
        state = replace(state, gesture_free_at=replaced_at(state.gesture_free_at, seat, None))
        return state, [private(seat, "floor_ready")]
    if kind == _ANNOUNCE:  # QU-7: announced again every 5 s while the floor is held
        hold = state.floor[seat]
        if hold is None or hold.emoji is None or hold.announce_at is None:  # never listed as due
            return state, []
        again = FloorHold(hold.emoji, after(hold.announce_at, ANNOUNCE_EVERY_SECONDS))
        state = replace(state, floor=replaced_at(state.floor, seat, again))
        return state, [public("shown", seat=seat, emoji=hold.emoji, again=True)]
    if kind == _VOTE_CLOSES:  # QU-12: no answer is no
        return refuse_reshuffle(state)
    if state.phase == SIGNALS_PHASE:  # QU-4: 30 s after the round was set up
        return start_play(state, at)
    if state.phase == PLAYING:  # QU-10: blank round
        return end_round(state, at, (0,) * state.teams, Call("blank", None, None, False))
    return setup_round(state, at)  # QU-11: the pause is over


def run_clock(state: QuatroState, now: float) -> tuple[QuatroState, Events]:
    """Fire every timer due at or before ``now``, in time order; the state's clock becomes ``now``."""
    events: Events = []
    while True:
        timers = pending_timers(state)
        if not timers or timers[0][0] > now:
            break
        at, kind, seat = timers[0]
        state, fired = _fire(replace(state, clock=max(state.clock, at)), kind, seat, at)
        events.extend(fired)
    return replace(state, clock=max(state.clock, now)), events
