"""The pure queue logic: rating windows, ranked pairing, casual tables with robots, parties as partners."""

from __future__ import annotations

import math
import random

from services.matchmaking.queues import QueueBook, QueueKey, RatingWindow, Ticket

RANKED_DUEL = QueueKey("four_down", "{}", 2, ranked=True)
CASUAL_FOUR = QueueKey("golf", "{}", 4, ranked=False)
QUATRO_FOUR = QueueKey("quatro", "{}", 4, ranked=False, teams=True)


def ticket(player: str, key: QueueKey, joined_at: float = 0.0, rating: float = 1500.0, party: str = "", members: tuple[str, ...] = ()) -> Ticket:
    return Ticket(f"t-{player}", player, key, joined_at, rating, party, members)


def book(*tickets: Ticket, robot_wait: float = 20.0) -> QueueBook:
    queues = QueueBook(RatingWindow(), robot_wait)
    for t in tickets:
        queues.add(t)
    return queues


def test_the_rating_window_starts_at_100_and_widens_by_50_every_5_seconds_then_opens() -> None:
    window = RatingWindow()
    assert [window.at(t) for t in (0, 4.9, 5, 12, 59.9)] == [100, 100, 150, 200, 650]
    assert window.at(60) == math.inf


def test_ranked_players_with_close_ratings_are_paired_at_once() -> None:
    queues = book(ticket("ann", RANKED_DUEL, rating=1500), ticket("bob", RANKED_DUEL, rating=1590))
    [match] = queues.take_matches(0.0, random.Random(1))
    assert sorted(p for p in match.seats if p) == ["ann", "bob"] and match.robots == 0
    assert queues.queues == {}


def test_ranked_players_far_apart_wait_until_both_windows_reach_the_gap() -> None:
    queues = book(ticket("ann", RANKED_DUEL, 0.0, 1500), ticket("bob", RANKED_DUEL, 5.0, 1700))
    assert queues.take_matches(9.9, random.Random(1)) == []  # ann's window is 200, bob's still 100
    [match] = queues.take_matches(15.0, random.Random(1))
    assert set(match.seats) == {"ann", "bob"}


def test_after_a_minute_anyone_is_acceptable() -> None:
    queues = book(ticket("ann", RANKED_DUEL, 0.0, 1000), ticket("bob", RANKED_DUEL, 0.0, 2500))
    assert queues.take_matches(59.0, random.Random(1)) == []
    assert len(queues.take_matches(60.0, random.Random(1))) == 1


def test_ranked_pairs_the_longest_waiting_with_the_closest_rating() -> None:
    queues = book(
        ticket("ann", RANKED_DUEL, 0.0, 1500), ticket("far", RANKED_DUEL, 1.0, 1590), ticket("near", RANKED_DUEL, 2.0, 1510)
    )
    [match] = queues.take_matches(2.0, random.Random(1))
    assert set(match.seats) == {"ann", "near"}
    assert [t.player_id for t in queues.waiting(RANKED_DUEL)] == ["far"]


def test_casual_humans_sit_together_as_soon_as_a_table_is_full() -> None:
    queues = book(*(ticket(p, CASUAL_FOUR, i) for i, p in enumerate(["a", "b", "c", "d", "e"])))
    [match] = queues.take_matches(4.0, random.Random(1))
    assert sorted(p for p in match.seats if p) == ["a", "b", "c", "d"]
    assert [t.player_id for t in queues.waiting(CASUAL_FOUR)] == ["e"]


def test_casual_robots_fill_the_empty_seats_once_the_first_player_waited_long_enough() -> None:
    queues = book(ticket("a", CASUAL_FOUR, 0.0), ticket("b", CASUAL_FOUR, 3.0), robot_wait=20.0)
    assert queues.take_matches(19.9, random.Random(1)) == []
    [match] = queues.take_matches(20.0, random.Random(1))
    assert match.robots == 2 and sorted(p for p in match.seats if p) == ["a", "b"]


def test_the_standing_counts_position_waiting_and_the_robot_countdown() -> None:
    first, second = ticket("a", CASUAL_FOUR, 0.0), ticket("b", CASUAL_FOUR, 3.0)
    queues = book(first, second, robot_wait=20.0)
    standing = queues.standing(second, 5.0)
    assert (standing.position, standing.waiting, standing.elapsed, standing.robots_in) == (2, 2, 2.0, 18.0)


def test_a_party_sits_as_partners_and_strangers_are_partnered_with_each_other() -> None:
    members = ("ann", "bob")
    queues = book(
        ticket("ann", QUATRO_FOUR, 0.0, party="P", members=members),
        ticket("solo1", QUATRO_FOUR, 1.0),
        ticket("bob", QUATRO_FOUR, 2.0, party="P", members=members),
        ticket("solo2", QUATRO_FOUR, 3.0),
    )
    [match] = queues.take_matches(3.0, random.Random(5))
    seats = match.seats
    ann, bob = seats.index("ann"), seats.index("bob")
    assert abs(ann - bob) == 2, "partners sit opposite: seat s and s + n/2"
    assert abs(seats.index("solo1") - seats.index("solo2")) == 2


def test_a_party_waits_until_every_member_has_joined() -> None:
    queues = book(ticket("ann", QUATRO_FOUR, 0.0, party="P", members=("ann", "bob")), robot_wait=1.0)
    assert queues.take_matches(100.0, random.Random(1)) == []
    queues.add(ticket("bob", QUATRO_FOUR, 100.0, party="P", members=("ann", "bob")))
    [match] = queues.take_matches(100.0, random.Random(1))
    assert match.robots == 2 and abs(match.seats.index("ann") - match.seats.index("bob")) == 2


def test_a_removed_ticket_is_no_longer_matched() -> None:
    queues = book(ticket("a", RANKED_DUEL), ticket("b", RANKED_DUEL))
    assert queues.remove("t-a") is not None and queues.remove("t-a") is None
    assert queues.take_matches(100.0, random.Random(1)) == []
