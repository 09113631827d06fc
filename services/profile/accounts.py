"""Accounts and sessions: guests, named accounts, sign-in, token rotation, sign-out, profile changes.

This is the profile service's domain layer: it checks requests (``players``), hashes passwords
(``passwords``), keeps players and refresh sessions (``store``, through worker threads) and issues
tokens (``shared.auth.TokenIssuer``). Every refusal is a ``ServiceError`` raised before anything is
written, so a refused call changes nothing.

Sessions: every sign-in opens a refresh session stored by its refresh token's ``jti``. Refreshing
ends that session and opens a new one in the same transaction, so a refresh token works once;
signing out ends it. A refresh token whose session has ended is refused (``TOKEN_INVALID``).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Callable

import grpc

from shared.auth import Claims, IssuedToken, TokenError, TokenIssuer
from shared.errors import ServiceError, invalid, not_found

from services.profile import players
from services.profile.passwords import Passwords
from services.profile.players import Player, ProfileChange
from services.profile.store import NoSuchPlayer, NotAGuest, ProfileStore, UsernameTaken

log = logging.getLogger(__name__)

# One message for a wrong name and a wrong password alike: the answer never tells whether a name exists.
BAD_CREDENTIALS_MESSAGE = "the username or password is wrong"


@dataclass(frozen=True)
class TokenPair:
    access: IssuedToken
    refresh: IssuedToken


@dataclass(frozen=True)
class SignedIn:
    """A player and the tokens of the session just opened; ``created`` when the player is new."""

    player: Player
    tokens: TokenPair
    created: bool = False


def bad_credentials() -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "BAD_CREDENTIALS", BAD_CREDENTIALS_MESSAGE)


def username_taken() -> ServiceError:
    return ServiceError(grpc.StatusCode.ALREADY_EXISTS, "CONFLICT", "this username is taken", {"field": "username"})


def session_ended() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.UNAUTHENTICATED,
        "TOKEN_INVALID",
        "this refresh token was already used or revoked; sign in again",
    )


class Accounts:
    """The profile service's rules, over its store, its password hasher and the token issuer."""

    def __init__(
        self,
        store: ProfileStore,
        passwords: Passwords,
        issuer: TokenIssuer,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.passwords = passwords
        self.issuer = issuer
        self.clock = clock

    # -- signing in -----------------------------------------------------------------------------

    async def sign_in_guest(self, device_id: str, display_name: str) -> SignedIn:
        device = players.device_id(device_id)
        new_id = uuid.uuid4().hex
        name = players.display_name(display_name) if display_name else players.guest_name(new_id)
        player, created = await asyncio.to_thread(self.store.guest, new_id, device, name, self.clock())
        if created:
            log.info("guest created", extra={"player_id": player.player_id})
        return SignedIn(player, await self._open_session(player.player_id), created)

    async def create_account(self, username: str, password: str, display_name: str, holder: Claims | None) -> SignedIn:
        """A new account, or the caller's guest account upgraded in place when ``holder`` is a guest."""
        name = players.username(username)
        secret = players.password(password)
        shown = players.display_name(display_name) if display_name else username
        if holder is not None:
            await self._check_upgradable(holder)
        if await asyncio.to_thread(self.store.credentials, name) is not None:
            raise username_taken()
        password_hash = await self.passwords.hash(secret)
        try:
            if holder is not None:
                player = await asyncio.to_thread(self.store.upgrade_guest, holder.subject, name, password_hash, shown)
                log.info("guest upgraded to an account", extra={"player_id": player.player_id})
            else:
                player = await asyncio.to_thread(
                    self.store.create_account, uuid.uuid4().hex, name, password_hash, shown, self.clock()
                )
                log.info("account created", extra={"player_id": player.player_id})
        except UsernameTaken as error:
            raise username_taken() from error
        except NotAGuest as error:
            raise _already_named() from error
        except NoSuchPlayer as error:
            raise not_found("player", "the token's player does not exist") from error
        return SignedIn(player, await self._open_session(player.player_id), created=True)

    async def sign_in(self, username: str, password: str) -> SignedIn:
        if not username:
            raise invalid("username", "username is required")
        if not password:
            raise invalid("password", "password is required")
        if len(password) > players.PASSWORD_LIMIT:
            raise invalid("password", f"password must be at most {players.PASSWORD_LIMIT} characters")
        found = await asyncio.to_thread(self.store.credentials, username.lower())
        player, stored_hash = found if found else (None, None)
        verdict = await self.passwords.verify(stored_hash, password)
        if player is None or not verdict.matches:
            raise bad_credentials()
        if verdict.new_hash:
            await asyncio.to_thread(self.store.set_password_hash, player.player_id, verdict.new_hash)
            log.info("password rehashed with current parameters", extra={"player_id": player.player_id})
        return SignedIn(player, await self._open_session(player.player_id))

    # -- sessions -------------------------------------------------------------------------------

    async def refresh(self, refresh_token: str) -> TokenPair:
        """A new pair for a live refresh token, whose session ends (the token works once)."""
        claims = self._refresh_claims(refresh_token)
        pair = self._issue(claims.subject)
        rotated = await asyncio.to_thread(
            self.store.rotate_session,
            claims.token_id,
            claims.subject,
            pair.refresh.token_id,
            pair.refresh.expires_at,
            self.clock(),
        )
        if not rotated:
            log.warning(
                "refresh token refused: its session has ended",
                extra={"player_id": claims.subject, "jti": claims.token_id},
            )
            raise session_ended()
        return pair

    async def sign_out(self, holder: Claims, refresh_token: str) -> None:
        """End the session of ``refresh_token``, which must be the caller's; ending it twice is fine."""
        if not refresh_token:
            raise invalid("refresh_token", "refresh_token is required")
        try:
            claims = self.issuer.verify(refresh_token, "refresh")
        except TokenError as error:
            if error.reason == "TOKEN_EXPIRED":
                return  # its session is over already: nothing is left to end
            raise invalid("refresh_token", "refresh_token is not a refresh token of ours") from error
        if claims.subject != holder.subject:
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN", "this refresh token is another player's")
        if await asyncio.to_thread(self.store.revoke_session, claims.token_id, claims.subject, self.clock()):
            log.info("signed out", extra={"player_id": claims.subject})

    # -- profiles -------------------------------------------------------------------------------

    async def profile(self, player_id: str) -> Player:
        player = await asyncio.to_thread(self.store.player, players.player_id(player_id))
        if player is None:
            raise not_found("player", "no player has this id")
        return player

    async def update_profile(self, player_id: str, change: ProfileChange) -> Player:
        try:
            player = await asyncio.to_thread(self.store.update_profile, player_id, change.apply)
        except NoSuchPlayer as error:
            raise not_found("player", "the token's player does not exist") from error
        log.info("profile updated", extra={"player_id": player_id})
        return player

    # -- helpers --------------------------------------------------------------------------------

    async def _check_upgradable(self, holder: Claims) -> None:
        if holder.kind != "access":
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN", "only a guest's own token upgrades a guest"
            )
        guest = await asyncio.to_thread(self.store.player, holder.subject)
        if guest is None:
            raise not_found("player", "the token's player does not exist")
        if not guest.guest:
            raise _already_named()

    def _refresh_claims(self, refresh_token: str) -> Claims:
        if not refresh_token:
            raise invalid("refresh_token", "refresh_token is required")
        claims = self.issuer.verify(refresh_token, "refresh")
        if not claims.token_id:
            raise TokenError("TOKEN_INVALID", "the token is not valid here")
        return claims

    def _issue(self, player_id: str) -> TokenPair:
        return TokenPair(access=self.issuer.access(player_id), refresh=self.issuer.refresh(player_id))

    async def _open_session(self, player_id: str) -> TokenPair:
        pair = self._issue(player_id)
        await asyncio.to_thread(
            self.store.open_session, pair.refresh.token_id, player_id, pair.refresh.expires_at, self.clock()
        )
        return pair


def _already_named() -> ServiceError:
    return ServiceError(
        grpc.StatusCode.FAILED_PRECONDITION,
        "CONFLICT",
        "this player already has an account; sign out to create another",
        {"field": "authorization"},
    )
