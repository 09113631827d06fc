"""The screen of ``quatro`` (real time, teams of two).

Shows, from the seat's own view: the centre, the seat's own hand, its team and partner, its team's
signal (only when the view tells it), who holds the floor and what they show, who is ready, a
running reshuffle vote, the round clock (table time, approximate) and the team scores; at round end
every hand, as the view makes them public. There are no turns: the command line is always open.

Commands (slots counted from 1): ``x H C`` exchange hand slot H with centre slot C (the expected
centre card is filled in from the screen), ``floor``, ``show 🍍``, ``release``, ``quatro`` (and
``quatro!`` to insist with a quartet in your own hand), ``contra [TEAM]``, ``ready``, ``signal 🍍``,
``reshuffle``, ``yes``/``no``, ``next`` (host: start the next round).

Never shows: another seat's hand before the round ends, another team's signal.
"""

from __future__ import annotations

from typing import Callable, Mapping

from services.client.families import Json, Place, Shown, who

HELP = (
    "Commands: x H C (exchange) | floor | show E | release | quatro | contra [T] | ready | signal E | "
    "reshuffle | yes | no | next"
)
# The menu numbers only the few one-off actions; exchanges, shows and signals are typed commands.
TYPED_ONLY = frozenset({"exchange", "show", "choose_signal"})


def team_name(team: int, my_team: int | None) -> str:
    return "your team" if team == my_team else f"team {team + 1}"


class QuatroScreen:
    real_time = True

    def render(self, view: Mapping[str, Json], seat: int, shown: Shown, names: list[str]) -> list[str]:
        my_team = view.get("team")
        totals = view.get("totals") or []
        scores = ", ".join(f"{team_name(t, my_team)} {total}" for t, total in enumerate(totals))
        clock, deadline = view.get("clock"), view.get("deadline")
        timer = f"   ~{max(0, int(deadline - clock))} s left" if isinstance(deadline, (int, float)) and isinstance(clock, (int, float)) else ""
        lines = [
            f"Quatro — round {view.get('round')} — {view.get('phase')}{timer} — {scores} (first to {view.get('target')})",
            "Centre:    " + " ".join(f"{i + 1}:{card}" for i, card in enumerate(view.get("center") or [])),
        ]
        hand = view.get("hand")
        if hand is not None:
            lines.append("Your hand: " + " ".join(f"{i + 1}:{card}" for i, card in enumerate(hand)))
        partner = view.get("partner")
        signal = (view.get("signal") or {}).get("signal")
        lines.append(
            f"Partner: {who(partner, seat, names)}   Team signal: {signal or 'not yet chosen'}"
            if partner is not None
            else "Spectating"
        )
        floor = view.get("floor") or []
        if floor:
            lines.append(
                "Floor: " + "; ".join(f"{who(h['seat'], seat, names)} " + (f"shows {h['emoji']}" if h.get("emoji") else "holds it") for h in floor)
            )
        if view.get("phase") == "signals":
            lines.append("Ready: " + (", ".join(who(s, seat, names) for s in view.get("ready") or []) or "nobody yet"))
        vote = view.get("vote")
        if vote:
            lines.append(f"Reshuffle proposed by {who(vote['proposer'], seat, names)}; yes so far: {len(vote.get('accepted') or [])}")
        for index, cards in enumerate(view.get("hands") or []):
            lines.append(f"  {who(index, seat, names)}: {' '.join(cards)}")
        lines.append(HELP)
        return lines

    def describe(self, action: Mapping[str, Json], view: Mapping[str, Json], seat: int) -> str:
        kind = action["type"]
        words = {
            "ready": "Ready",
            "take_floor": "Take the floor",
            "release_floor": "Release the floor",
            "propose_reshuffle": "Propose a reshuffle",
            "start_next_round": "Start the next round",
        }
        if kind in words:
            return words[kind]
        if kind == "quatro":
            return "¡Quatro! (insist)" if action.get("confirm") else "¡Quatro! (your partner holds four of a kind)"
        if kind == "contra":
            team = action.get("team")
            return "¡Contra!" + (f" against {team_name(int(team), view.get('team'))}" if team is not None else "")
        if kind == "vote":
            return "Vote yes to reshuffle" if action.get("accept") else "Vote no"
        if kind == "exchange":
            hand = view.get("hand") or []
            slot = int(action["hand_slot"])
            mine = hand[slot] if slot < len(hand) else "?"
            return f"Exchange your {mine} (slot {slot + 1}) for {action['expect']} (centre {int(action['center_slot']) + 1})"
        if kind == "show":
            return f"Show {action['emoji']}"
        if kind == "choose_signal":
            return f"Choose {action['emoji']} as the team signal"
        return str(dict(action))

    def in_menu(self, action: Mapping[str, Json]) -> bool:
        return action["type"] not in TYPED_ONLY

    def command(self, line: str, view: Mapping[str, Json], legal: list[dict[str, Json]]) -> dict[str, Json] | None:
        words = line.split()
        if not words:
            return None
        head, rest = words[0].lower(), words[1:]
        if head == "x" and len(rest) == 2 and all(w.isdigit() for w in rest):
            hand_slot, center_slot = int(rest[0]) - 1, int(rest[1]) - 1
            center = view.get("center") or []
            expect = center[center_slot] if 0 <= center_slot < len(center) else ""
            return {"type": "exchange", "hand_slot": hand_slot, "center_slot": center_slot, "expect": expect}
        if head in ("show", "signal") and rest:
            return {"type": "show" if head == "show" else "choose_signal", "emoji": rest[0]}
        if head == "contra":
            if rest and rest[0].isdigit():
                return {"type": "contra", "team": int(rest[0]) - 1}
            offered = [a for a in legal if a["type"] == "contra"]
            return offered[0] if len(offered) == 1 else {"type": "contra"}
        simple: dict[str, dict[str, Json]] = {
            "floor": {"type": "take_floor"},
            "release": {"type": "release_floor"},
            "quatro": {"type": "quatro", "confirm": False},
            "quatro!": {"type": "quatro", "confirm": True},
            "ready": {"type": "ready"},
            "reshuffle": {"type": "propose_reshuffle"},
            "yes": {"type": "vote", "accept": True},
            "no": {"type": "vote", "accept": False},
            "next": {"type": "start_next_round"},
        }
        return simple.get(head)

    def reveals(self, event: Mapping[str, Json], seat: int) -> list[tuple[Place, str]]:
        return []  # everything the seat may know is in its view

    def moved(self, event: Mapping[str, Json]) -> list[Place]:
        return []

    def narrate(self, event: Mapping[str, Json], seat: int, names: list[str]) -> str | None:
        kind = event["kind"]
        actor = who(event.get("seat"), seat, names)
        if kind == "exchanged":
            return (
                f"{actor} put {event.get('placed')} in centre {int(event.get('center_slot', 0)) + 1} "
                f"and took {event.get('taken')}"
            )
        if kind == "round_ended":
            call = event.get("call") or {}
            if not call or call.get("kind") == "blank":  # QU-10: no call within the round's time
                return f"Round {event.get('round')} over: no call, nobody scores"
            verdict = "right" if call.get("correct") else "wrong"
            return f"Round {event.get('round')} over: {who(call.get('seat'), seat, names)} called ¡{str(call.get('kind')).capitalize()}! ({verdict}); totals {event.get('totals')}"
        lines: dict[str, Callable[[], str | None]] = {
            "round_dealt": lambda: f"Round {event.get('round')} dealt" + (f" ({event.get('redeals')} redeals)" if event.get("redeals") else ""),
            "signal_fixed": lambda: f"{team_name(int(event.get('by_team', 0)), None).capitalize()} fixed its signal",
            "team_signal": lambda: "Your team's signal is set",
            "ready": lambda: f"{actor} {'are' if event.get('seat') == seat else 'is'} ready",
            "round_started": lambda: "The round is on!",
            "floor_taken": lambda: f"{actor} took the floor",
            "shown": lambda: f"{actor} show{'' if event.get('seat') == seat else 's'} {event.get('emoji')}",
            "floor_released": lambda: f"{actor} released the floor",
            "exchange_ready": lambda: "You may exchange again",
            "floor_ready": lambda: "You may take or release the floor again",
            "reshuffle_proposed": lambda: f"{actor} proposes a reshuffle: yes or no?",
            "voted": lambda: f"{actor} voted {'yes' if event.get('accept') else 'no'}",
            "reshuffle_refused": lambda: "The reshuffle was refused",
            "reshuffled": lambda: "Hands and centre were reshuffled",
            "disconnected": lambda: f"{actor} lost connection",
            "reconnected": lambda: f"{actor} is back",
            "match_over": lambda: f"Match over: totals {event.get('totals')}",
        }
        line = lines.get(kind)
        return line() if line else None
