"""Password hashing with argon2id (argon2-cffi's ``PasswordHasher``, RFC 9106's low-memory profile).

Hashing is slow and memory-hungry on purpose, so it runs in worker threads (never on the event
loop) and only a few at a time. A sign-in for a name that does not exist still verifies against a
dummy hash, so that the answer takes as long as for a wrong password (no user enumeration by timing).
A hash made with older parameters is replaced by a fresh one at the next successful sign-in.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

# Each hash takes ~64 MiB and a CPU core for ~0.1 s: four at a time bounds a sign-in storm to
# 256 MiB and leaves cores for the rest of the service; the others wait their turn.
HASH_CONCURRENCY = 4


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a password: whether it matched, and a new hash to store if it is due."""

    matches: bool
    new_hash: str | None = None


class Passwords:
    """Hashes and checks passwords off the event loop."""

    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher or PasswordHasher()
        self._slots = asyncio.Semaphore(HASH_CONCURRENCY)
        self._dummy_hash: str | None = None

    async def hash(self, password: str) -> str:
        async with self._slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, stored_hash: str | None, password: str) -> Verdict:
        """Check ``password`` against ``stored_hash``; with no hash, spend the same time and refuse."""
        if stored_hash is None:
            await self._verify(await self._dummy(), password)
            return Verdict(matches=False)
        if not await self._verify(stored_hash, password):
            return Verdict(matches=False)
        if self.hasher.check_needs_rehash(stored_hash):
            return Verdict(matches=True, new_hash=await self.hash(password))
        return Verdict(matches=True)

    async def _verify(self, stored_hash: str, password: str) -> bool:
        async with self._slots:
            return await asyncio.to_thread(self._check, stored_hash, password)

    def _check(self, stored_hash: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored_hash, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    async def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = await self.hash("not a password anyone has: evens out sign-in timing")
        return self._dummy_hash
