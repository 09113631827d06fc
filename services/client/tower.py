"""The screen of ``tower`` (the Stone Tower shedding game).

Shows, from the seat's own view: its hand (sorted), every seat's face-up slots, Four Down slots as
``[?]`` (locked or unlocked) and hand size, the arena with its top rank and consecutive count, the
holder, direction and variations, totals; the card the seat just flipped while it is its to play;
announcements as they arrive ("THREE JACKS!").

Never shows: another seat's hand, any Four Down card before it is flipped and played, or a flipped
card that did not play once it joined the hand (it is then just part of the hand).
"""

from __future__ import annotations

from typing import Callable, Mapping

from services.client.families import Json, Place, Shown, who

VARIATION_NAMES = {
    "hot_fives": "Hot Fives",
    "skip_sixes": "Skip Sixes",
    "high_sevens": "High Sevens",
    "reverse_eights": "Reverse Eights",
}


class TowerScreen:
    real_time = False

    def render(self, view: Mapping[str, Json], seat: int, shown: Shown, names: list[str]) -> list[str]:
        turn = view.get("turn")
        if view.get("phase") == "match_over":
            status = "match over"
        elif view.get("awaiting_setup"):
            status = f"{who(view.get('holder'), seat, names)} to choose direction"
        else:
            status = "your turn" if turn == seat else f"{who(turn, seat, names)} to play"
        variations = ", ".join(VARIATION_NAMES.get(v, v) for v in view.get("variations") or []) or "none"
        lines = [
            f"Tower — round {view.get('round')} of {view.get('rounds')} — {status}",
            f"Direction: {view.get('direction') or 'not set'}   Variations: {variations}",
        ]
        arena = view.get("arena") or []
        if arena:
            lines.append(f"Arena: {' '.join(arena)}   top {view.get('arena_top')} x{view.get('arena_count')}")
        else:
            lines.append("Arena: empty")
        totals = view.get("totals") or []
        for layout in view.get("seats") or []:
            index = layout["seat"]
            up = " ".join(f"{slot + 1}:{card or '--'}" for slot, card in enumerate(layout.get("up") or []))
            down = " ".join(
                f"{slot + 1}:{'[?]' if present else '[ ]'}" for slot, present in enumerate(layout.get("down") or [])
            )
            lock = "" if layout.get("down_unlocked") else " (locked)"
            marker = ">" if turn == index else " "
            total = totals[index] if index < len(totals) else 0
            lines.append(
                f"{marker} {who(index, seat, names):<24} hand {layout.get('hand_size')}  up {up}  down {down}{lock}  total {total}"
            )
        hand = view.get("hand")
        if hand is not None:
            lines.append(f"Your hand: {' '.join(hand) or '(empty)'}")
        flipped = view.get("flipped")
        if flipped:
            lines.append(f"You flipped Four Down slot {int(flipped['slot']) + 1}: {flipped['card']}")
        if view.get("phase") == "match_over":
            lines.append(
                f"TOWER MASTER: {', '.join(who(s, seat, names) for s in view.get('tower_master') or [])}"
                f"   TOWER DISASTER: {', '.join(who(s, seat, names) for s in view.get('tower_disaster') or [])}"
            )
        return lines

    def describe(self, action: Mapping[str, Json], view: Mapping[str, Json], seat: int) -> str:
        kind = action["type"]
        if kind == "setup":
            chosen = [VARIATION_NAMES.get(v, v) for v in action.get("variations") or []]
            return f"Play {action['direction']}" + (f" with {', '.join(chosen)}" if chosen else ", no variations")
        if kind == "play":
            parts = []
            if action.get("hand"):
                parts.append(" ".join(action["hand"]) + " from hand")
            if action.get("up"):
                parts.append("face-up " + " ".join(f"slot {int(s) + 1}" for s in action["up"]))
            if action.get("down"):
                parts.append("the flipped card")
            played_as = f" as {action['as']}" if action.get("as") else ""
            return f"Play {' + '.join(parts)}{played_as}"
        if kind == "flip":
            return f"Flip Four Down slot {int(action['slot']) + 1}"
        if kind == "pick_up":
            return f"Pick up the arena ({len(view.get('arena') or [])} cards)"
        return str(dict(action))

    def command(self, line: str, view: Mapping[str, Json], legal: list[dict[str, Json]]) -> dict[str, Json] | None:
        if line in ("p", "pick", "pickup") and {"type": "pick_up"} in legal:
            return {"type": "pick_up"}
        return None

    def in_menu(self, action: Mapping[str, Json]) -> bool:
        return True

    def reveals(self, event: Mapping[str, Json], seat: int) -> list[tuple[Place, str]]:
        return []  # a flipped card is in the view while it is the seat's to play

    def moved(self, event: Mapping[str, Json]) -> list[Place]:
        return []

    def narrate(self, event: Mapping[str, Json], seat: int, names: list[str]) -> str | None:
        kind = event["kind"]
        actor = who(event.get("seat"), seat, names)
        if kind == "announce":
            return f"*** {event.get('text')} ***"
        lines: dict[str, Callable[[], str | None]] = {
            "round_started": lambda: f"Round {event.get('round')} dealt; {who(event.get('holder'), seat, names)} holds the tower",
            "dealt": lambda: f"You were dealt {len(event.get('hand') or [])} cards",
            "setup_needed": lambda: f"{actor} chooses the direction",
            "setup": lambda: f"{actor} chose {event.get('direction')}"
            + (f" with {', '.join(VARIATION_NAMES.get(v, v) for v in event.get('variations') or [])}" if event.get("variations") else ""),
            "played": lambda: f"{actor} played {' '.join(event.get('cards') or [])}",
            "picked_up": lambda: f"{actor} picked up the arena ({event.get('count')} cards)",
            "arena_cleared": lambda: f"{actor} cleared the arena",
            "go_again": lambda: f"{actor} go{'' if event.get('seat') == seat else 'es'} again",
            "flipped": lambda: f"{actor} flipped Four Down slot {int(event.get('slot', 0)) + 1}",
            "flip_shown": lambda: "Your flipped card " + ("can play" if event.get("plays") else "cannot play: you pick up"),
            "took_flipped": lambda: "The flipped card joins your hand",
            "round_over": lambda: f"Round {event.get('round')} over: {who(event.get('winner'), seat, names)} went out; totals {event.get('totals')}",
            "match_over": lambda: "*** TOWER MASTER: "
            + ", ".join(who(s, seat, names) for s in event.get("tower_master") or [])
            + "! TOWER DISASTER: "
            + ", ".join(who(s, seat, names) for s in event.get("tower_disaster") or [])
            + "! ***",
        }
        line = lines.get(kind)
        return line() if line else None
