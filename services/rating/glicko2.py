"""Glicko-2 ratings for the platform ladder: the algorithm alone.

Follows Mark Glickman, "Example of the Glicko-2 system" (Boston University, 2013): the comments cite its
steps 1-8, and step 5 finds the new volatility with the Illinois algorithm the paper gives. The
parameters are lichess's (lila, ``modules/rating/src/main/glicko2/`` and ``Glicko.scala``), because the
ladder is shared with games such as Chess whose players expect lichess-like numbers.

Limits: no database, no clock, no I/O. One call of ``update`` is one rating period, and step 6 grows the
deviation by exactly one period of volatility; growing an idle player's deviation with the time elapsed
is the caller's business. Ratings are floats; rounding them for display is the caller's too. Scores are
from the rated player's side: 1 a win, 0.5 a draw, 0 a loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

# Step 2: Glickman's factor between the Glicko scale and the Glicko-2 scale (400 / ln 10, as printed in
# the paper, so that its worked example is reproduced digit for digit).
GLICKO2_SCALE = 173.7178

# Lichess's start for a newcomer: the centre of the scale, a deviation so wide that the first games move
# the rating fast, and a volatility a little above Glickman's 0.06 because online players change quickly.
INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 500.0
INITIAL_VOLATILITY = 0.09

# Lichess's system constant: how fast volatility may change. Glickman advises 0.3..1.2; lichess takes the
# upper-middle because online ratings drift faster than over-the-board ones.
TAU = 0.75

# Lichess's bounds on a stored deviation: never more certain than 45 (so an active player's rating keeps
# answering results) and never less certain than a newcomer (500).
MIN_DEVIATION = 45.0
MAX_DEVIATION = 500.0

# Lichess's ceiling on volatility: "past this, it might not stabilize ever again". It also keeps every
# exponential in step 5 finite, whatever a caller passes in.
MAX_VOLATILITY = 0.1

# Lichess shows a rating as provisional ("1500?") while its deviation is at least this.
PROVISIONAL_DEVIATION = 110.0

# Step 5: Glickman's convergence tolerance (epsilon) on the Glicko-2 log-variance scale.
CONVERGENCE_TOLERANCE = 1e-6

# Step 5.4: the Illinois iteration converges in a few dozen steps; lila stops at 1000 and so do we, so a
# pathological input cannot loop for ever (the last bracket is then used, already within a tiny margin).
MAX_ITERATIONS = 1000

# Step 3: the expected score is kept this far from 0 and 1. It is only reached for rating gaps beyond
# about 3,600 points, which no real ladder holds; it keeps the variance v finite for absurd inputs.
MIN_EXPECTED_SCORE = 1e-9

# The scores a single game may give.
WIN = 1.0
DRAW = 0.5
LOSS = 0.0
_SCORES = (WIN, DRAW, LOSS)


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating on the Glicko scale: rating, deviation (RD) and volatility."""

    rating: float
    deviation: float
    volatility: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise ValueError(f"rating must be finite, not {self.rating!r}")
        if not (math.isfinite(self.deviation) and self.deviation > 0):
            raise ValueError(f"deviation must be positive and finite, not {self.deviation!r}")
        if not (math.isfinite(self.volatility) and self.volatility > 0):
            raise ValueError(f"volatility must be positive and finite, not {self.volatility!r}")

    @property
    def provisional(self) -> bool:
        """Whether the rating is still too uncertain to show without a question mark."""
        return self.deviation >= PROVISIONAL_DEVIATION


DEFAULT = Rating(INITIAL_RATING, INITIAL_DEVIATION, INITIAL_VOLATILITY)


@dataclass(frozen=True)
class _Scaled:
    """A rating on the Glicko-2 scale (step 2): mu and phi."""

    mu: float
    phi: float


def _to_glicko2(rating: Rating) -> _Scaled:
    """Step 2: convert to the Glicko-2 scale. A deviation above the ceiling is read as the ceiling
    (lichess caps every stored deviation there; a wider one carries no more information)."""
    deviation = min(rating.deviation, MAX_DEVIATION)
    return _Scaled(mu=(rating.rating - INITIAL_RATING) / GLICKO2_SCALE, phi=deviation / GLICKO2_SCALE)


def _from_glicko2(rating: float, mu_change: float, phi: float, volatility: float) -> Rating:
    """Step 8: convert back to the Glicko scale, the deviation clamped to lichess's bounds.

    r' = 173.7178 mu' + 1500 is applied as a change to the old rating (the same value algebraically),
    so that a tiny change is not lost in the round trip between scales and its sign is always kept.
    """
    deviation = min(max(phi * GLICKO2_SCALE, MIN_DEVIATION), MAX_DEVIATION)
    return Rating(rating=rating + mu_change * GLICKO2_SCALE, deviation=deviation, volatility=volatility)


def _g(phi: float) -> float:
    """Step 3: g(phi), how much an opponent's uncertainty damps what a result against them says."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected_score(mu: float, opponent: _Scaled) -> float:
    """Step 3: E(mu, mu_j, phi_j), the expected score against one opponent (a logistic computed without
    overflow, kept MIN_EXPECTED_SCORE away from certainty)."""
    exponent = -_g(opponent.phi) * (mu - opponent.mu)
    if exponent >= 0:
        odds = math.exp(-exponent)
        expected = odds / (1.0 + odds)
    else:
        expected = 1.0 / (1.0 + math.exp(exponent))
    return min(max(expected, MIN_EXPECTED_SCORE), 1.0 - MIN_EXPECTED_SCORE)


def _volatility_objective(x: float, delta: float, phi: float, variance: float, a: float, tau: float) -> float:
    """Step 5.1: f(x), whose root is the log of the new volatility squared."""
    ex = math.exp(x)
    spread = phi * phi + variance + ex
    return ex * (delta * delta - phi * phi - variance - ex) / (2.0 * spread * spread) - (x - a) / (tau * tau)


def _new_volatility(phi: float, sigma: float, variance: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility sigma', by the Illinois algorithm (a regula falsi that halves the stale
    end's value), capped at MAX_VOLATILITY."""

    def f(x: float) -> float:
        return _volatility_objective(x, delta, phi, variance, a, tau)

    # Step 5.1: a = ln(sigma^2), written 2 ln(sigma) so a tiny sigma does not underflow to ln(0).
    a = 2.0 * math.log(sigma)
    # Step 5.2: bracket the root with A and B.
    big_a = a
    if delta * delta > phi * phi + variance:
        big_b = math.log(delta * delta - phi * phi - variance)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    # Step 5.3
    f_a, f_b = f(big_a), f(big_b)
    # Step 5.4: narrow the bracket until it is within the tolerance (or its two ends have the same value,
    # where the next secant step would divide by zero: the bracket cannot shrink any further).
    iterations = 0
    while abs(big_b - big_a) > CONVERGENCE_TOLERANCE and iterations < MAX_ITERATIONS and f_b != f_a:
        iterations += 1
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    # Step 5.5
    return min(math.exp(big_a / 2.0), MAX_VOLATILITY)


def _check_score(score: float) -> None:
    if isinstance(score, bool) or score not in _SCORES:
        raise ValueError(f"a score is 1, 0.5 or 0, not {score!r}")


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these results.

    ``results`` holds (opponent's rating before the period, the player's score). With no results only
    step 6 applies: rating and volatility stay, the deviation grows by one period of volatility.
    ``tau`` is the system constant (Glickman's worked example uses 0.5). Raises ``ValueError`` for a
    score other than 1, 0.5 or 0, or a tau that is not positive and finite.
    """
    if not (math.isfinite(tau) and tau > 0):
        raise ValueError(f"tau must be positive and finite, not {tau!r}")
    for _, score in results:
        _check_score(score)
    # Step 1 is the choice of the parameters above; step 2 converts to the Glicko-2 scale.
    own = _to_glicko2(player)
    sigma = min(player.volatility, MAX_VOLATILITY)
    if not results:
        # Step 6 alone for a player who did not compete.
        return _from_glicko2(player.rating, 0.0, math.sqrt(own.phi * own.phi + sigma * sigma), sigma)
    opponents = [(_to_glicko2(opponent), score) for opponent, score in results]
    # Step 3: v, the estimated variance of the rating from the game outcomes alone.
    variance = 1.0 / sum(
        _g(opp.phi) ** 2 * _expected_score(own.mu, opp) * (1.0 - _expected_score(own.mu, opp))
        for opp, _ in opponents
    )
    # Step 4: delta, the estimated improvement, from the outcome-based rating sum.
    outcome_sum = sum(_g(opp.phi) * (score - _expected_score(own.mu, opp)) for opp, score in opponents)
    delta = variance * outcome_sum
    # Step 5: the new volatility.
    new_sigma = _new_volatility(own.phi, sigma, variance, delta, tau)
    # Step 6: the pre-period deviation phi*.
    phi_star = math.sqrt(own.phi * own.phi + new_sigma * new_sigma)
    # Step 7: the new deviation and rating. phi' = 1 / sqrt(1/phi*^2 + 1/v), written so that a phi* too
    # small to square (an absurdly certain input) cannot divide by zero.
    new_phi = phi_star / math.sqrt(1.0 + phi_star * phi_star / variance)
    mu_change = new_phi * new_phi * outcome_sum  # mu' = mu + phi'^2 * sum g(phi_j)(s_j - E)
    # Step 8: back to the Glicko scale.
    return _from_glicko2(player.rating, mu_change, new_phi, new_sigma)


def rate_match(a: Rating, b: Rating, score_a: float, tau: float = TAU) -> tuple[Rating, Rating]:
    """Both players' ratings after one two-player game, each updated from the pre-game ratings.

    ``score_a`` is A's score (1, 0.5 or 0); B's is its complement. Raises ``ValueError`` as ``update``.
    """
    _check_score(score_a)
    return update(a, [(b, score_a)], tau), update(b, [(a, 1.0 - score_a)], tau)
