"""The Quatro rules engine (seed 001, rules/quatro.md): the ``Game`` the table service drives.

Purpose: decide whether each action is allowed now and what it does (QU-3..QU-13), and expose
the table to seats (views), to robots (legal actions) and to tests (inspect). Quatro is real
time: nobody has the turn (``to_move`` is always None), every seat may act at once, and the
clock drives the rest through ``next_deadline`` / ``advance``.
Limits: pure and deterministic; time is the ``now`` given, randomness comes from the table's
seed. ``disconnect`` / ``reconnect`` are sent by the table service on a seat's behalf and are
not listed among a seat's legal actions.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping

from shared.games.base import (
    BAD_OPTION,
    BAD_SEAT_COUNT,
    BAD_TARGET,
    COOLDOWN,
    ILLEGAL,
    OWN_QUARTET,
    ROUND_OVER,
    STALE,
    Action,
    Event,
    Json,
    MatchResult,
    Rejection,
    SeatView,
    Setup,
    public,
)
from shared.games.quatro import actions as act
from shared.games.quatro.actions import Move, parse
from shared.games.quatro.flow import (
    ANNOUNCE_EVERY_SECONDS,
    EXCHANGE_COOLDOWN_SECONDS,
    GESTURE_SPACING_SECONDS,
    PROPOSAL_SPACING_SECONDS,
    VOTE_SECONDS,
    Events,
    after,
    end_round,
    pending_timers,
    refuse_reshuffle,
    run_clock,
    settle_vote,
    setup_round,
    signal_told,
    start_play_if_all_ready,
)
from shared.games.quatro.rules import (
    CENTER_SIZE,
    HAND_SIZE,
    SEAT_COUNTS,
    SIGNALS,
    given_deal,
    holds_quartet,
    members,
    partner_of,
    team_of,
)
from shared.games.quatro.state import ROUND_OVER as ROUND_OVER_PHASE
from shared.games.quatro.state import (
    MATCH_OVER,
    PLAYING,
    SIGNALS_PHASE,
    Call,
    FloorHold,
    QuatroState,
    Vote,
    replaced_at,
)
from shared.games.quatro import views

HOST_OPTION = "host"  # rules/README.md: the host is the table's creator; seat 0 unless set

Handler = Callable[[QuatroState, int, Move, float], tuple[QuatroState, Events]]


# --- guards --------------------------------------------------------------------------------------


def _require_phase(state: QuatroState, *phases: str) -> None:
    """Refuse an action outside its phases: ``round_over`` once the round has ended, else ``illegal``."""
    if state.phase in phases:
        return
    if state.phase in (ROUND_OVER_PHASE, MATCH_OVER):
        raise Rejection(ROUND_OVER, "the round is over")
    raise Rejection(ILLEGAL, f"not allowed in the {state.phase} phase")


def _require_free(free_at: float | None, now: float, what: str) -> None:
    if free_at is not None and now < free_at:
        raise Rejection(COOLDOWN, f"{what} again in {free_at - now:.1f} s")


def effective_host(state: QuatroState) -> int | None:
    """QU-11: the table's creator, or the lowest connected human seat if the creator is gone."""
    humans = state.connected_humans()
    if state.host in humans:
        return state.host
    return humans[0] if humans else None


def _may_propose(state: QuatroState, now: float) -> None:
    """QU-12: one reshuffle per round, one vote at a time, 30 s between two proposals."""
    if state.reshuffled:
        raise Rejection(ILLEGAL, "this round was already reshuffled")
    if state.vote is not None:
        raise Rejection(ILLEGAL, "a vote is already open")
    if state.last_proposal_at is not None:
        _require_free(after(state.last_proposal_at, PROPOSAL_SPACING_SECONDS), now, "a proposal")


def _may_vote(state: QuatroState, seat: int) -> Vote:
    vote = state.vote
    if vote is None:
        raise Rejection(ILLEGAL, "no vote is open")
    if seat == vote.proposer or seat in state.robots:  # QU-12: robots do not vote
        raise Rejection(ILLEGAL, "this seat does not vote on this proposal")
    if seat in vote.accepted:
        raise Rejection(ILLEGAL, "this seat has already voted")
    return vote


def _contra_target(state: QuatroState, seat: int, move: Move) -> int:
    """QU-9: an opposing team, named (6 or 8 players) or implicit (4 players)."""
    own = team_of(seat, state.seats)
    team = move.fields.get("team")
    if team is None:
        if state.teams != 2:
            raise Rejection(BAD_TARGET, "name the team you accuse (QU-9)")
        return 1 - own
    if not isinstance(team, int) or not 0 <= team < state.teams or team == own:
        raise Rejection(BAD_TARGET, "accuse an opposing team (QU-9)")
    return team


# --- actions -------------------------------------------------------------------------------------


def _choose_signal(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-3: the first partner to choose fixes the team's signal; the partner is told, nobody else."""
    _require_phase(state, SIGNALS_PHASE)
    team = team_of(seat, state.seats)
    fixed = state.signals[team]
    if fixed is not None:  # the partner was first: the choice is moot, the seat is reminded
        return state, [signal_told(team, fixed, state.seats, chosen_by=None)]
    emoji = str(move.fields["emoji"])
    if emoji == state.previous_signals[team]:
        raise Rejection(ILLEGAL, "a new round needs a new signal (QU-3)")
    state = replace(state, signals=replaced_at(state.signals, team, emoji))
    return state, [public("signal_fixed", by_team=team), signal_told(team, emoji, state.seats, chosen_by=seat)]


def _ready(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-4: play starts when every connected human is ready."""
    _require_phase(state, SIGNALS_PHASE)
    if seat in state.ready:
        raise Rejection(ILLEGAL, "already ready")
    state = replace(state, ready=state.ready | {seat})
    started, events = start_play_if_all_ready(state, now)
    return started, [public("ready", seat=seat), *events]


def _exchange(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-5: trade a hand card for a centre card, if the card expected is still there; QU-6."""
    _require_phase(state, PLAYING)
    hand_slot, center_slot = int(move.fields["hand_slot"]), int(move.fields["center_slot"])
    if not 0 <= hand_slot < HAND_SIZE or not 0 <= center_slot < CENTER_SIZE:
        raise Rejection(BAD_TARGET, "no such slot")
    _require_free(state.exchange_free_at[seat], now, "exchange")
    taken = state.center[center_slot]
    if move.fields["expect"] != taken:
        raise Rejection(STALE, "that centre card is no longer there")
    placed = state.hands[seat][hand_slot]
    hand = replaced_at(state.hands[seat], hand_slot, taken)
    state = replace(
        state,
        hands=replaced_at(state.hands, seat, hand),
        center=replaced_at(state.center, center_slot, placed),
        exchange_free_at=replaced_at(state.exchange_free_at, seat, after(now, EXCHANGE_COOLDOWN_SECONDS)),
    )
    exchanged = public(
        "exchanged", seat=seat, hand_slot=hand_slot, center_slot=center_slot, placed=placed, taken=taken
    )
    return state, [exchanged]


def _take_floor(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-7: taking the floor is public; gestures 2 s apart."""
    _require_phase(state, PLAYING)
    if state.holds_floor(seat):
        raise Rejection(ILLEGAL, "already holding the floor")
    _require_free(state.gesture_free_at[seat], now, "a floor gesture")
    state = replace(
        state,
        floor=replaced_at(state.floor, seat, FloorHold()),
        gesture_free_at=replaced_at(state.gesture_free_at, seat, after(now, GESTURE_SPACING_SECONDS)),
    )
    return state, [public("floor_taken", seat=seat)]


def _show(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-7: show an emoji while holding the floor; changing it restarts the 5 s cadence."""
    _require_phase(state, PLAYING)
    if not state.holds_floor(seat):
        raise Rejection(ILLEGAL, "take the floor first")
    emoji = str(move.fields["emoji"])
    hold = FloorHold(emoji, after(now, ANNOUNCE_EVERY_SECONDS))
    return replace(state, floor=replaced_at(state.floor, seat, hold)), [public("shown", seat=seat, emoji=emoji, again=False)]


def _release_floor(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-7: releasing is public; gestures 2 s apart."""
    _require_phase(state, PLAYING)
    if not state.holds_floor(seat):
        raise Rejection(ILLEGAL, "not holding the floor")
    _require_free(state.gesture_free_at[seat], now, "a floor gesture")
    state = replace(
        state,
        floor=replaced_at(state.floor, seat, None),
        gesture_free_at=replaced_at(state.gesture_free_at, seat, after(now, GESTURE_SPACING_SECONDS)),
    )
    return state, [public("floor_released", seat=seat)]


def _quatro(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-8: judged on the caller's partner's hand only; QU-10: it ends the round."""
    _require_phase(state, PLAYING)
    if holds_quartet(state.hands[seat]) and move.fields.get("confirm") is not True:
        raise Rejection(OWN_QUARTET, "your partner must call your quartet: send again with confirm to go on")
    team = team_of(seat, state.seats)
    correct = holds_quartet(state.hands[partner_of(seat, state.seats)])
    scores = tuple(int(other == team) if correct else int(other != team) for other in range(state.teams))
    return end_round(state, now, scores, Call(act.QUATRO, seat, team, correct))


def _contra(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-9: right if either accused player holds a quartet now; QU-10: it ends the round."""
    _require_phase(state, PLAYING)
    accused = _contra_target(state, seat, move)
    correct = any(holds_quartet(state.hands[member]) for member in members(accused, state.seats))
    scoring_team = team_of(seat, state.seats) if correct else accused
    scores = tuple(int(team == scoring_team) for team in range(state.teams))
    return end_round(state, now, scores, Call(act.CONTRA, seat, accused, correct))


def _propose_reshuffle(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-12: open a 20 s vote of every other connected human."""
    _require_phase(state, PLAYING)
    _may_propose(state, now)
    closes_at = after(now, VOTE_SECONDS)
    state = replace(state, vote=Vote(seat, closes_at), last_proposal_at=now)
    proposed = public("reshuffle_proposed", seat=seat, closes_at=closes_at)
    settled, events = settle_vote(state, now)
    return settled, [proposed, *events]


def _vote(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-12: a yes counts toward the reshuffle; a no refuses it at once."""
    _require_phase(state, PLAYING)
    vote = _may_vote(state, seat)
    accept = move.fields["accept"] is True
    voted = public("voted", seat=seat, accept=accept)
    if not accept:
        refused, events = refuse_reshuffle(state)
        return refused, [voted, *events]
    state = replace(state, vote=replace(vote, accepted=vote.accepted | {seat}))
    settled, events = settle_vote(state, now)
    return settled, [voted, *events]


def _start_next_round(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-11: the host cuts the pause short."""
    if state.phase != ROUND_OVER_PHASE:
        raise Rejection(ILLEGAL, "no round is waiting to start")
    if seat != effective_host(state):
        raise Rejection(ILLEGAL, "only the host starts the next round")
    return setup_round(state, now)


def _disconnect(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-13: the seat keeps its place and hand; its readiness and vote stop counting."""
    if seat in state.disconnected:
        raise Rejection(ILLEGAL, "already disconnected")
    state = replace(state, disconnected=state.disconnected | {seat})
    return _settle_after_connection(state, now, public("disconnected", seat=seat))


def _reconnect(state: QuatroState, seat: int, move: Move, now: float) -> tuple[QuatroState, Events]:
    """QU-13: the seat is back; its view is rebuilt from scratch."""
    if seat not in state.disconnected:
        raise Rejection(ILLEGAL, "not disconnected")
    state = replace(state, disconnected=state.disconnected - {seat})
    return _settle_after_connection(state, now, public("reconnected", seat=seat))


def _settle_after_connection(state: QuatroState, now: float, notice: Event) -> tuple[QuatroState, Events]:
    """Who counts for QU-4 readiness and the QU-12 vote has changed: either may now be settled."""
    state, started = start_play_if_all_ready(state, now)
    state, settled = settle_vote(state, now)
    return state, [notice, *started, *settled]


_HANDLERS: dict[str, Handler] = {
    act.CHOOSE_SIGNAL: _choose_signal,
    act.READY: _ready,
    act.EXCHANGE: _exchange,
    act.TAKE_FLOOR: _take_floor,
    act.SHOW: _show,
    act.RELEASE_FLOOR: _release_floor,
    act.QUATRO: _quatro,
    act.CONTRA: _contra,
    act.PROPOSE_RESHUFFLE: _propose_reshuffle,
    act.VOTE: _vote,
    act.START_NEXT_ROUND: _start_next_round,
    act.DISCONNECT: _disconnect,
    act.RECONNECT: _reconnect,
}
_CONNECTION_MOVES = frozenset({act.DISCONNECT, act.RECONNECT})


# --- legal actions -------------------------------------------------------------------------------


def _playing_actions(state: QuatroState, seat: int) -> list[dict[str, Json]]:
    legal: list[dict[str, Json]] = []
    if state.exchange_free_at[seat] is None:
        legal += [
            {"type": act.EXCHANGE, "hand_slot": hand_slot, "center_slot": center_slot, "expect": card}
            for hand_slot in range(HAND_SIZE)
            for center_slot, card in enumerate(state.center)
        ]
    holding = state.holds_floor(seat)
    if state.gesture_free_at[seat] is None:
        legal.append({"type": act.RELEASE_FLOOR if holding else act.TAKE_FLOOR})
    if holding:
        legal += [{"type": act.SHOW, "emoji": emoji} for emoji in SIGNALS]
    legal.append({"type": act.QUATRO, "confirm": holds_quartet(state.hands[seat])})
    own = team_of(seat, state.seats)
    legal += [{"type": act.CONTRA, "team": team} for team in range(state.teams) if team != own]
    try:
        _may_propose(state, state.clock)
        legal.append({"type": act.PROPOSE_RESHUFFLE})
    except Rejection:
        pass
    try:
        _may_vote(state, seat)
        legal += [{"type": act.VOTE, "accept": True}, {"type": act.VOTE, "accept": False}]
    except Rejection:
        pass
    return legal


def _signal_phase_actions(state: QuatroState, seat: int) -> list[dict[str, Json]]:
    legal: list[dict[str, Json]] = []
    team = team_of(seat, state.seats)
    if state.signals[team] is None:
        legal += [
            {"type": act.CHOOSE_SIGNAL, "emoji": emoji} for emoji in SIGNALS if emoji != state.previous_signals[team]
        ]
    if seat not in state.ready:
        legal.append({"type": act.READY})
    return legal


# --- the engine ----------------------------------------------------------------------------------


class Quatro:
    """The ``Game`` for ``quatro``: teams of two, real time, first team to 5 points."""

    id = "quatro"
    min_seats = min(SEAT_COUNTS)
    max_seats = max(SEAT_COUNTS)

    def check_options(self, options: Mapping[str, Json], seats: int) -> dict[str, Json]:
        if not isinstance(seats, int) or isinstance(seats, bool) or seats not in SEAT_COUNTS:
            raise Rejection(BAD_SEAT_COUNT, "quatro is played by 4, 6 or 8 players")
        if not isinstance(options, Mapping):
            raise Rejection(BAD_OPTION, "options are an object")
        unknown = set(options) - {HOST_OPTION}
        if unknown:
            raise Rejection(BAD_OPTION, f"unknown quatro option {sorted(map(str, unknown))[0]!r}")
        host = options.get(HOST_OPTION, 0)
        if not isinstance(host, int) or isinstance(host, bool) or not 0 <= host < seats:
            raise Rejection(BAD_OPTION, "host must be a seat of the table")
        return {HOST_OPTION: host}

    def start(self, setup: Setup) -> tuple[QuatroState, Events]:
        options = self.check_options(setup.options, setup.seats)
        seats = setup.seats
        robots = frozenset(seat for seat in setup.robots if isinstance(seat, int) and 0 <= seat < seats)
        empty_seats: tuple[None, ...] = (None,) * seats
        table = QuatroState(
            seats=seats,
            host=int(options[HOST_OPTION]),
            seed=setup.seed,
            deals=tuple(given_deal(raw, seats) for raw in setup.deals),
            robots=robots,
            clock=setup.now,
            phase=SIGNALS_PHASE,
            round=0,
            phase_since=setup.now,
            hands=(),
            center=(),
            redeals=0,
            signals=(None,) * (seats // 2),
            previous_signals=(None,) * (seats // 2),
            ready=robots,
            disconnected=frozenset(),
            exchange_free_at=empty_seats,
            gesture_free_at=empty_seats,
            floor=empty_seats,
            vote=None,
            last_proposal_at=None,
            reshuffled=False,
            totals=(0,) * (seats // 2),
            round_scores=(0,) * (seats // 2),
            history=(),
            last_call=None,
            winners=(),
        )
        return setup_round(table, setup.now)

    def apply(self, state: QuatroState, seat: int, action: Action, now: float) -> tuple[QuatroState, Events]:
        move = parse(action)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.seats:
            raise Rejection(BAD_TARGET, "no such seat")
        state, fired = run_clock(state, now)  # every timer due by now takes effect first
        if move.kind not in _CONNECTION_MOVES and seat in state.disconnected:
            raise Rejection(ILLEGAL, "this seat is disconnected")
        state, events = _HANDLERS[move.kind](state, seat, move, state.clock)
        return state, [*fired, *events]

    def next_deadline(self, state: QuatroState) -> float | None:
        timers = pending_timers(state)
        return timers[0][0] if timers else None

    def advance(self, state: QuatroState, now: float) -> tuple[QuatroState, Events]:
        return run_clock(state, now)

    def to_move(self, state: QuatroState) -> int | None:
        return None  # real time: no turns

    def legal_actions(self, state: QuatroState, seat: int) -> list[dict[str, Json]]:
        if not isinstance(seat, int) or not 0 <= seat < state.seats or seat in state.disconnected:
            return []
        if state.phase == SIGNALS_PHASE:
            return _signal_phase_actions(state, seat)
        if state.phase == PLAYING:
            return _playing_actions(state, seat)
        if state.phase == ROUND_OVER_PHASE and seat == effective_host(state):
            return [{"type": act.START_NEXT_ROUND}]
        return []

    def clock_actions(self, state: QuatroState, seat: int) -> list[dict[str, Json]]:
        return []  # no turn clock: the table's own timers drive Quatro

    def view(self, state: QuatroState, seat: int | None) -> SeatView:
        return views.seat_view(state, seat, effective_host(state))

    def result(self, state: QuatroState) -> MatchResult | None:
        return views.match_result(state)

    def inspect(self, state: QuatroState) -> dict[str, Json]:
        return views.inspect(state)


QUATRO = Quatro()
