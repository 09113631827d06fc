"""What each seat, a spectator and the server may see of a Quatro table (QU-16).

Purpose: build views by allow-list (only what that seat may know now), the server's ``inspect``
truth in conformance terms (FORMAT.md "Checks") and the match result (QU-14, QU-17).
Limits: a view never carries a private reveal; the only private things in a seat's view are its
own hand and its own team's signal, the one object shaped ``{"team", "signal"}``.
"""

from __future__ import annotations

from shared.games.base import Json, MatchResult, SeatView, Standing
from shared.games.quatro.flow import (
    PROPOSAL_SPACING_SECONDS,
    TARGET_POINTS,
    after,
    call_json,
    phase_deadline,
    quartets_json,
)
from shared.games.quatro.rules import SIGNALS, members, partner_of, team_of
from shared.games.quatro.state import MATCH_OVER, ROUND_OVER, QuatroState

WIN, DRAW, LOSS = "win", "draw", "loss"  # rules/README.md "Progression"


def _public_view(state: QuatroState, host: int | None) -> SeatView:
    """Everything public (QU-16): centre, floor, shown emojis, scores, timers, who is connected."""
    vote = state.vote
    view: SeatView = {
        "game": "quatro",
        "seats": state.seats,
        "teams": [list(members(team, state.seats)) for team in range(state.teams)],
        "phase": state.phase,
        "round": state.round,
        "turn": None,
        "clock": state.clock,
        "deadline": phase_deadline(state),
        "center": list(state.center),
        "redeals": state.redeals,
        "floor": [
            {"seat": seat, "emoji": hold.emoji} for seat, hold in enumerate(state.floor) if hold is not None
        ],
        "emojis": list(SIGNALS),
        "ready": sorted(state.ready),
        "robots": sorted(state.robots),
        "disconnected": sorted(state.disconnected),
        "host": host,
        "vote": None
        if vote is None
        else {"proposer": vote.proposer, "closes_at": vote.closes_at, "accepted": sorted(vote.accepted)},
        "reshuffled": state.reshuffled,
        "next_proposal_from": None
        if state.last_proposal_at is None
        else after(state.last_proposal_at, PROPOSAL_SPACING_SECONDS),
        "totals": list(state.totals),
        "round_scores": list(state.round_scores),
        "target": TARGET_POINTS,
        "last_call": call_json(state.last_call),
        "winners": list(state.winners),
    }
    if state.phase in (ROUND_OVER, MATCH_OVER):  # QU-10: every hand is public at round end
        view["hands"] = [list(hand) for hand in state.hands]
        view["quartets"] = quartets_json(state)
    return view


def seat_view(state: QuatroState, seat: int | None, host: int | None) -> SeatView:
    """The view of ``seat`` (``None``: a spectator): the public view, plus for a seat its own hand,
    its team and partner, its team's signal (QU-3) and its own cooldowns (QU-6, QU-7)."""
    view = _public_view(state, host)
    if seat is None or not 0 <= seat < state.seats:
        return view
    team = team_of(seat, state.seats)
    view.update(
        seat=seat,
        team=team,
        partner=partner_of(seat, state.seats),
        hand=list(state.hands[seat]),
        exchange_free_at=state.exchange_free_at[seat],
        floor_free_at=state.gesture_free_at[seat],
    )
    signal = state.signals[team]
    if signal is not None:
        view["signal"] = {"team": team, "signal": signal}
    return view


def inspect(state: QuatroState) -> dict[str, Json]:
    """The whole truth, keyed as FORMAT.md "Checks" (scores per team)."""
    return {
        "hands": {str(seat): list(hand) for seat, hand in enumerate(state.hands)},
        "center": list(state.center),
        "phase": state.phase,
        "turn": None,
        "round": state.round,
        "round_scores": list(state.round_scores),
        "totals": list(state.totals),
        "winners": list(state.winners),
        "caller": None if state.last_call is None else state.last_call.seat,
        "signals": {str(team): signal for team, signal in enumerate(state.signals) if signal is not None},
        "ready": sorted(state.ready),
        "disconnected": sorted(state.disconnected),
        "floor": {str(seat): hold.emoji for seat, hold in enumerate(state.floor) if hold is not None},
        "vote": None if state.vote is None else {"proposer": state.vote.proposer, "accepted": sorted(state.vote.accepted)},
        "reshuffled": state.reshuffled,
        "redeals": state.redeals,
        "clock": state.clock,
    }


def match_result(state: QuatroState) -> MatchResult | None:
    """QU-14: per seat, each partner carrying the team's total; a shared best score is a draw."""
    if state.phase != MATCH_OVER:
        return None
    shared = len(state.winners) > 1
    standings = []
    for seat in range(state.seats):
        team = team_of(seat, state.seats)
        outcome = (DRAW if shared else WIN) if team in state.winners else LOSS
        standings.append(Standing(state.totals[team], outcome))
    per_seat_rounds = tuple(
        tuple(scores[team_of(seat, state.seats)] for seat in range(state.seats)) for scores in state.history
    )
    return MatchResult(tuple(standings), len(state.history), per_seat_rounds)
