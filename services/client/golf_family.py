"""The screen of the four-card family: ``four_down``, ``golf``, ``cambio`` and ``cabo``.

Shows, from the seat's own view: every seat's row by slot (``[?]`` a face-down card, ``[ ]`` an
empty slot), the discard top and pile size, the stock size, whose turn it is, who called, the card
this seat holds (its own drawn card, or a card taken from the pile, which is public), owed gives,
the snap window, totals and the finish line. A card this seat was shown (its first look, a power's
look, a wrong match turned face up for everyone) appears in its slot only while the reveal board
holds it, then the slot shows ``[?]`` again.

Never shows: another seat's drawn card, any face-down card beyond the reveal time, or a card in
the event log that the seat only glimpsed (log lines say "you were shown slot 2", never which card).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from services.client.families import Json, Place, Shown, who

NAMES = {"four_down": "Four Down", "golf": "Four Card Golf", "cambio": "Cambio", "cabo": "Cabo"}
FACE_DOWN = "[?]"
EMPTY = "[ ]"


def slot_name(target: Any, me: int) -> str:
    """``[seat, slot]`` in words, counted from 1: "your slot 2" or "seat 3 slot 1"."""
    seat, slot = int(target[0]), int(target[1])
    return f"your slot {slot + 1}" if seat == me else f"seat {seat + 1} slot {slot + 1}"


def rank(card: Any) -> str:
    """The rank of a card: "10H" -> "10"; Cabo's numbered cards are their own rank."""
    text = str(card)
    return text[:-1] if text[-1:] in "SHDC" and len(text) > 1 else text


class GolfFamilyScreen:
    """One screen for the four games of the family (their views share one shape)."""

    real_time = False

    def __init__(self, game: str) -> None:
        self.game = game
        self.call_word = "Knock" if game == "golf" else "Call"

    # -- the table -----------------------------------------------------------------------------------

    def render(self, view: Mapping[str, Json], seat: int, shown: Shown, names: list[str]) -> list[str]:
        lines = [self._headline(view, seat, names)]
        top = view.get("discard_top")
        lines.append(
            f"Discard pile: {top or 'empty'} ({view.get('discard_size', 0)} cards)   Stock: {view.get('stock_size', 0)} cards"
        )
        slots = view.get("slots") or []
        totals = view.get("totals") or []
        for index, row in enumerate(slots):
            cells = " ".join(f"{slot + 1}:{self._cell(index, slot, present, shown)}" for slot, present in enumerate(row))
            total = totals[index] if index < len(totals) else 0
            marker = ">" if view.get("turn") == index else " "
            lines.append(f"{marker} {who(index, seat, names):<24} {cells}   total {total}")
        lines.extend(self._holding(view, seat, names))
        lines.extend(self._situation(view, seat, names))
        return lines

    def _headline(self, view: Mapping[str, Json], seat: int, names: list[str]) -> str:
        title = NAMES.get(self.game, self.game)
        limit = view.get("round_limit")
        round_text = f"round {view.get('round')}" + (f" of {limit}" if limit else "")
        finish = view.get("finish_line")
        goal = f"   finish line {finish}" if finish and not limit else ""
        if view.get("phase") == "match_over":
            return f"{title} — {round_text} — match over{goal}"
        turn = view.get("turn")
        whose = "your turn" if turn == seat else f"{who(turn, seat, names)} to play" if turn is not None else "waiting"
        return f"{title} — {round_text} — {whose}{goal}"

    @staticmethod
    def _cell(seat: int, slot: int, present: bool, shown: Shown) -> str:
        if not present:
            return EMPTY
        card = shown.get((seat, slot))
        return f"[{card}]" if card else FACE_DOWN

    def _holding(self, view: Mapping[str, Json], seat: int, names: list[str]) -> list[str]:
        drawn = view.get("drawn")
        if not drawn:
            return []
        source = "the stock" if drawn.get("from") == "stock" else "the discard pile"
        if drawn.get("seat") == seat and view.get("hand"):
            return [f"You hold {view['hand']} (from {source})"]
        card = f" {drawn['card']}" if drawn.get("card") else " a card"
        return [f"{who(drawn.get('seat'), seat, names)} holds{card} from {source}"]

    def _situation(self, view: Mapping[str, Json], seat: int, names: list[str]) -> list[str]:
        lines = []
        if view.get("caller") is not None and view.get("phase") != "match_over":
            lines.append(f"{who(view['caller'], seat, names)} {'knocked' if self.game == 'golf' else 'called'}: last turns for the others")
        for owed in view.get("gives_owed") or []:
            lines.append(f"{who(owed['seat'], seat, names)} must give a card to fill {slot_name(owed['hole'], seat)}")
        choice = view.get("choice")
        if choice:
            lines.append(f"{who(choice['seat'], seat, names)} looked at {slot_name(choice['looked'], seat)}: swap or pass")
        if (view.get("snap_window") or {}).get("open"):
            lines.append(f"Snap window open on {view.get('discard_top')}")
        if view.get("phase") == "match_over":
            lines.extend(self._result(view, seat, names))
        return lines

    def _result(self, view: Mapping[str, Json], seat: int, names: list[str]) -> list[str]:
        lines = []
        last = (view.get("last_round") or {}).get("hands") or []
        for index, row in enumerate(last):
            cards = " ".join(f"[{card}]" if card else EMPTY for card in row)
            lines.append(f"  last round, {who(index, seat, names)}: {cards}")
        return lines

    # -- actions ---------------------------------------------------------------------------------------

    def describe(self, action: Mapping[str, Json], view: Mapping[str, Json], seat: int) -> str:
        kind = action["type"]
        held = view.get("hand")
        top = view.get("discard_top")
        if kind == "call":
            return self.call_word
        if kind == "draw":
            return "Draw from stock" if action["from"] == "stock" else f"Take {top} from the discard pile"
        if kind == "replace":
            return f"Replace slot {int(action['slot']) + 1} with the drawn card" + (f" ({held})" if held else "")
        if kind == "discard":
            return "Discard the drawn card" + (f" ({held})" if held else "")
        if kind == "power":
            targets = action.get("targets") or []
            if len(targets) == 1:
                return f"Look at {slot_name(targets[0], seat)} (power)"
            return f"Swap {slot_name(targets[0], seat)} with {slot_name(targets[1], seat)} (power)"
        if kind == "swap":
            targets = action.get("targets") or []
            return f"Swap {slot_name(targets[0], seat)} with {slot_name(targets[1], seat)}"
        if kind == "pass":
            return "Do not swap"
        if kind == "match":
            claim = f" (claim it is a {rank(held)})" if held else ""
            return f"Match {slot_name(action['target'], seat)}{claim}"
        if kind == "burn":
            return f"Burn {slot_name(action['target'], seat)} (claim it matches {top})"
        if kind == "snap":
            return f"Snap {slot_name(action['target'], seat)} onto {top}"
        if kind == "give":
            return f"Give your slot {int(action['slot']) + 1} to fill the hole"
        if kind == "move_finish_line":
            return f"Move the finish line to {action['to']}"
        return str(dict(action))

    def command(self, line: str, view: Mapping[str, Json], legal: list[dict[str, Json]]) -> dict[str, Json] | None:
        return None  # every action is in the numbered menu

    def in_menu(self, action: Mapping[str, Json]) -> bool:
        return True

    # -- events ----------------------------------------------------------------------------------------

    def reveals(self, event: Mapping[str, Json], seat: int) -> list[tuple[Place, str]]:
        kind = event["kind"]
        if kind == "first_look":
            return [((seat, int(item["slot"])), str(item["card"])) for item in event.get("cards") or []]
        if kind == "card_seen":
            return [(tuple(event["target"]), str(event["card"]))]
        if kind == "match_failed" and event.get("revealed"):
            return [(tuple(event["target"]), str(event["revealed"]))]
        if kind == "snap_failed" and event.get("card"):
            return [(tuple(event["target"]), str(event["card"]))]
        return []

    def moved(self, event: Mapping[str, Json]) -> list[Place]:
        kind = event["kind"]
        if kind == "replaced":
            return [(event["seat"], event["slot"])]
        if kind in ("swapped", "power_used") and len(event.get("targets") or []) == 2:
            return [tuple(target) for target in event["targets"]]
        if kind in ("matched", "burned", "snapped"):
            return [tuple(event["target"])]
        if kind == "gave":
            return [(event["seat"], event["slot"]), tuple(event["to"])]
        return []

    def narrate(self, event: Mapping[str, Json], seat: int, names: list[str]) -> str | None:
        kind = event["kind"]
        actor = who(event.get("seat"), seat, names)
        target = slot_name(event["target"], seat) if "target" in event else ""
        lines: dict[str, Callable[[], str | None]] = {
            "round_started": lambda: f"Round {event.get('round')} dealt; {who(event.get('starter'), seat, names)} starts",
            "first_look": lambda: "You were shown "
            + " and ".join(f"your slot {int(item['slot']) + 1}" for item in event.get("cards") or [])
            + " (remember them)",
            "drew": lambda: f"{actor} took {event.get('card')} from the discard pile"
            if event.get("from") == "discard"
            else f"{actor} drew from the stock",
            "replaced": lambda: f"{actor} replaced slot {int(event.get('slot', 0)) + 1}; {event.get('card')} goes on the pile",
            "discarded": lambda: f"{actor} discarded {event.get('card')}",
            "power_used": lambda: f"{actor} used the power of {event.get('card')}",
            "card_seen": lambda: f"You were shown {target} (remember it)",
            "swapped": lambda: f"{actor} swapped two cards",
            "passed": lambda: f"{actor} did not swap",
            "match_failed": lambda: f"{actor} claimed {target} matches {event.get('card')}: wrong, and takes a penalty card",
            "matched": lambda: f"{actor} matched {target}: {event.get('matched')} goes on the pile",
            "burn_failed": lambda: f"{actor} tried to burn {target}: wrong",
            "burned": lambda: f"{actor} burned {target}: {event.get('card')} goes on the pile",
            "snap_failed": lambda: f"{actor} snapped {target}: wrong",
            "snapped": lambda: f"{actor} snapped {target}: {event.get('card')} goes on the pile",
            "give_owed": lambda: f"{actor} must give a card to fill {slot_name(event['hole'], seat)}" if "hole" in event else None,
            "gave": lambda: f"{actor} gave slot {int(event.get('slot', 0)) + 1} to fill {slot_name(event['to'], seat)}"
            if "to" in event
            else None,
            "cleared": lambda: f"{actor} cleared their row",
            "penalty_card": lambda: f"{actor} takes a penalty card into slot {int(event.get('slot', 0)) + 1}",
            "stock_reshuffled": lambda: f"The pile was shuffled into a new stock ({event.get('stock_size')} cards)",
            "finish_line_moved": lambda: f"{actor} moved the finish line to {event.get('to')}",
            "called": lambda: f"{actor} {'knocked' if self.game == 'golf' else 'called'}",
            "round_ended": lambda: f"Round {event.get('round')} over: scores {event.get('scores')}, totals {event.get('totals')}",
            "match_ended": lambda: f"Match over: totals {event.get('totals')}, "
            + ", ".join(who(w, seat, names) for w in event.get("winners") or [])
            + " won",
        }
        if kind in ("power_used",) and len(event.get("targets") or []) == 2:
            a, b = event["targets"]
            return f"{actor} used the power of {event.get('card')}: swapped {slot_name(a, seat)} and {slot_name(b, seat)}"
        if kind in ("power_used",) and len(event.get("targets") or []) == 1:
            return f"{actor} used the power of {event.get('card')} to look at {slot_name(event['targets'][0], seat)}"
        if kind == "swapped" and len(event.get("targets") or []) == 2:
            a, b = event["targets"]
            return f"{actor} swapped {slot_name(a, seat)} and {slot_name(b, seat)}"
        line = lines.get(kind)
        return line() if line else None
