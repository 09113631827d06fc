"""What a seat may know now (``seat_view``, by allow-list) and the whole truth (``inspect``).

A view holds public facts and the seat's own card in hand, never a face-down card: a private
reveal (first look, a power's look) is not part of any view (rules/README.md, "Visibility").
The rows of the last finished round are public (FD-15: at round end every row is public).
Every number goes out as a JSON number, never as a string, so that nothing in a view looks like
a card of Cabo's numbered deck.
"""

from __future__ import annotations

from shared.games.base import Json, SeatView
from shared.games.golf_family.rules import FamilyRules
from shared.games.golf_family.state import FamilyState, Row


def _rows(hands: tuple[Row, ...]) -> list[list[str | None]]:
    return [list(row) for row in hands]


def seat_view(rules: FamilyRules, state: FamilyState, seat: int | None) -> SeatView:
    return {
        "game": state.game_id,
        "you": seat,
        "seats": state.seats,
        "options": dict(state.options),
        "round": state.round,
        "phase": state.phase,
        "turn": None if state.over else state.turn,
        "caller": state.caller,
        "final_turns": None if state.final_seats is None else list(state.final_seats),
        # Which slots hold a card, per seat: the layout is public, its faces are not (FD-15).
        "slots": [[card is not None for card in row] for row in state.hands],
        "discard": list(state.discard),  # every card on the pile is public (FD-15)
        "discard_top": state.discard[-1] if state.discard else None,
        "discard_size": len(state.discard),
        "stock_size": len(state.stock),
        "drawn": _drawn(state),
        "hand": state.drawn if seat is not None and seat == state.turn else None,
        "gives_owed": [{"seat": give.giver, "hole": list(give.hole)} for give in state.gives],
        "choice": _choice(state),
        "burned_this_turn": state.burned,
        "snap_window": {"open": state.window_open, "opener": state.window_opener},
        "totals": list(state.totals),
        "round_scores": None if state.round_scores is None else list(state.round_scores),
        "history": [list(scores) for scores in state.history],
        "finish_line": state.finish_line,
        "round_limit": state.round_limit,
        "last_round": None if state.last_round_hands is None else {"hands": _rows(state.last_round_hands)},
        "winners": list(state.winners),
    }


def _drawn(state: FamilyState) -> dict[str, Json] | None:
    """Public: who holds a drawn card and from where; its face only if it came off the pile."""
    if state.drawn is None:
        return None
    card = state.drawn if state.drawn_from == "discard" else None
    return {"seat": state.turn, "from": state.drawn_from, "card": card}


def _choice(state: FamilyState) -> dict[str, Json] | None:
    """Public: who looked at which slot and must now swap or pass (CA-17)."""
    if state.choice is None:
        return None
    return {"seat": state.choice.seat, "looked": list(state.choice.looked), "power": state.choice.power}


def inspect(state: FamilyState) -> dict[str, Json]:
    """The whole truth, in the conformance "Checks" keys plus the family's own."""
    return {
        "hands": {str(seat): list(row) for seat, row in enumerate(state.hands)},
        "turn": None if state.over else state.turn,
        "phase": state.phase,
        "round": state.round,
        "totals": list(state.totals),
        "round_scores": None if state.round_scores is None else list(state.round_scores),
        "winners": list(state.winners),
        "caller": state.caller,
        "discard_top": state.discard[-1] if state.discard else None,
        "discard_size": len(state.discard),
        "stock_size": len(state.stock),
        "discard": list(state.discard),
        "stock": list(state.stock),
        "drawn": state.drawn,
        "drawn_from": state.drawn_from,
        "final_turns": None if state.final_seats is None else list(state.final_seats),
        "gives_owed": [{"seat": give.giver, "hole": list(give.hole)} for give in state.gives],
        "window_open": state.window_open,
        "finish_line": state.finish_line,
        "last_round_hands": None if state.last_round_hands is None else _rows(state.last_round_hands),
    }
