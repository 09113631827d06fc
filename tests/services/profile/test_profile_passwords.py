"""Password hashing (services/profile/passwords.py): argon2id, no hash means no match, rehash on new parameters."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

from services.profile.passwords import Passwords

CHEAP = PasswordHasher.from_parameters(CHEAPEST)


async def test_a_hash_matches_its_password_only() -> None:
    passwords = Passwords(CHEAP)
    stored = await passwords.hash("correct horse")
    assert stored.startswith("$argon2id$")
    assert "correct horse" not in stored
    assert (await passwords.verify(stored, "correct horse")).matches
    assert not (await passwords.verify(stored, "correct horsE")).matches


async def test_no_stored_hash_never_matches() -> None:
    assert not (await Passwords(CHEAP).verify(None, "anything at all")).matches


async def test_a_malformed_stored_hash_never_matches() -> None:
    assert not (await Passwords(CHEAP).verify("not-a-hash", "anything at all")).matches


async def test_a_hash_made_with_older_parameters_is_replaced_on_a_match() -> None:
    old = await Passwords(CHEAP).hash("correct horse")
    stronger = PasswordHasher(time_cost=CHEAP.time_cost + 1, memory_cost=CHEAP.memory_cost, parallelism=1)
    verdict = await Passwords(stronger).verify(old, "correct horse")
    assert verdict.matches and verdict.new_hash is not None
    assert not stronger.check_needs_rehash(verdict.new_hash)
    assert (await Passwords(stronger).verify(verdict.new_hash, "correct horse")).new_hash is None


async def test_a_wrong_password_is_not_rehashed() -> None:
    old = await Passwords(CHEAP).hash("correct horse")
    stronger = PasswordHasher(time_cost=CHEAP.time_cost + 1, memory_cost=CHEAP.memory_cost, parallelism=1)
    verdict = await Passwords(stronger).verify(old, "wrong horse")
    assert not verdict.matches and verdict.new_hash is None
