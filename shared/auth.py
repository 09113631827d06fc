"""Tokens: what profile issues and every service checks (PyJWT, HS256).

Four kinds, told apart by the ``typ`` claim so that one can never stand in for another:

* ``access``: a player, for every call (``authorization: Bearer ...``); short-lived.
* ``refresh``: traded with profile for a new pair; long-lived, revocable by its ``jti``.
* ``service``: one service calling another (matchmaking opening a table, table recording a result).
* ``seat``: exactly one player acting and watching as exactly one seat of one table.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Protocol

import jwt

ISSUER = "cardroom"
ALGORITHM = "HS256"
ACCESS_SECONDS = 15 * 60  # short: a stolen access token is worth little; phones refresh silently
REFRESH_SECONDS = 30 * 24 * 3600  # a month: players rarely type passwords on phones
SERVICE_SECONDS = 3600  # services mint a fresh one per hour
SEAT_SECONDS = 7 * 24 * 3600  # outlives any match, including a long Tower one with breaks
LEEWAY_SECONDS = 30  # phones' clocks drift


class TokenError(Exception):
    """A token that may not be used. ``reason`` is an ErrorReason name."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Claims:
    subject: str
    kind: str
    expires_at: float
    token_id: str = ""
    table_id: str = ""
    seat: int = -1

    @property
    def is_service(self) -> bool:
        return self.kind == "service"


@dataclass(frozen=True)
class IssuedToken:
    token: str
    expires_at: float
    token_id: str


class TokenIssuer:
    """Signs and checks tokens with the platform's shared secret."""

    def __init__(self, secret: str, clock: "Clock | None" = None) -> None:
        self._secret = secret
        self._clock = clock or time.time

    def _issue(self, subject: str, kind: str, lifetime: float, **extra: object) -> IssuedToken:
        now = self._clock()
        token_id = uuid.uuid4().hex
        claims = {"iss": ISSUER, "sub": subject, "typ": kind, "iat": int(now), "exp": int(now + lifetime), "jti": token_id}
        claims.update(extra)
        return IssuedToken(jwt.encode(claims, self._secret, algorithm=ALGORITHM), now + lifetime, token_id)

    def access(self, player_id: str) -> IssuedToken:
        return self._issue(player_id, "access", ACCESS_SECONDS)

    def refresh(self, player_id: str) -> IssuedToken:
        return self._issue(player_id, "refresh", REFRESH_SECONDS)

    def service(self, name: str) -> IssuedToken:
        return self._issue(f"service:{name}", "service", SERVICE_SECONDS)

    def seat(self, player_id: str, table_id: str, seat: int) -> IssuedToken:
        return self._issue(player_id, "seat", SEAT_SECONDS, tbl=table_id, seat=seat)

    def verify(self, token: str, *kinds: str) -> Claims:
        """The token's claims if it is ours, unexpired and of one of ``kinds``; else ``TokenError``."""
        if not token:
            raise TokenError("TOKEN_MISSING", "no token was sent")
        try:
            claims = jwt.decode(
                token,
                self._secret,
                algorithms=[ALGORITHM],
                issuer=ISSUER,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "sub", "typ", "iss"], "verify_iat": False},
            )
        except jwt.ExpiredSignatureError as error:
            raise TokenError("TOKEN_EXPIRED", "the token has expired; refresh it") from error
        except jwt.PyJWTError as error:
            raise TokenError("TOKEN_INVALID", "the token is not valid here") from error
        if kinds and claims["typ"] not in kinds:
            raise TokenError("TOKEN_INVALID", f"a {claims['typ']} token cannot be used here")
        return Claims(
            subject=str(claims["sub"]),
            kind=str(claims["typ"]),
            expires_at=float(claims["exp"]),
            token_id=str(claims.get("jti", "")),
            table_id=str(claims.get("tbl", "")),
            seat=int(claims.get("seat", -1)),
        )


class Clock(Protocol):
    def __call__(self) -> float: ...
