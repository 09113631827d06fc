"""Sign-in for the terminal client: a guest device id kept on disk, tokens kept fresh.

The device id is generated once and stored with the tokens in ``$CARDROOM_HOME/session.json``
(default ``~/.config/cardroom/``), readable by its owner only. An access token that is about to run
out is traded with ``RefreshTokens``; a refresh token that no longer works (revoked, expired, or
another server's) signs the same device in again as a guest. Tokens are never logged or printed.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import grpc
from cardroom.profile.v1 import profile_pb2, profile_pb2_grpc

log = logging.getLogger(__name__)

SESSION_FILE = "session.json"
# Refresh a little before the access token runs out, so that a call sent now is not refused in flight
# (the servers allow 30 s of clock drift; one minute covers a slow phone network too).
REFRESH_MARGIN_SECONDS = 60.0
SIGN_IN_TIMEOUT = 10.0  # seconds; sign-in is one database round trip on the profile server


def home() -> Path:
    """Where the client keeps its files: ``$CARDROOM_HOME`` or ``~/.config/cardroom``."""
    configured = os.environ.get("CARDROOM_HOME")
    return Path(configured) if configured else Path.home() / ".config" / "cardroom"


@dataclass
class StoredSession:
    """What is kept on disk between runs."""

    device_id: str
    player_id: str = ""
    access_token: str = ""
    access_expires_at: float = 0.0
    refresh_token: str = ""
    refresh_expires_at: float = 0.0


def load(directory: Path) -> StoredSession:
    """The stored session, or a new device id when there is none (or it is unreadable)."""
    path = directory / SESSION_FILE
    try:
        return StoredSession(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return StoredSession(device_id=uuid.uuid4().hex)


def save(directory: Path, stored: StoredSession) -> None:
    """Writes the session readable by its owner only (it holds tokens)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SESSION_FILE
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(asdict(stored), handle)
    temporary.replace(path)


class Session:
    """A signed-in guest: gives call metadata with a fresh access token."""

    def __init__(
        self,
        profile_channel: grpc.aio.Channel,
        directory: Path | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.stub = profile_pb2_grpc.ProfileServiceStub(profile_channel)
        self.directory = directory or home()
        self.clock = clock
        self.stored = load(self.directory)

    @property
    def player_id(self) -> str:
        return self.stored.player_id

    async def metadata(self) -> list[tuple[str, str]]:
        """``authorization`` metadata with an access token valid for at least the margin."""
        if not self.stored.access_token or self.stored.access_expires_at - REFRESH_MARGIN_SECONDS <= self.clock():
            await self.renew()
        return [("authorization", f"Bearer {self.stored.access_token}")]

    async def renew(self) -> None:
        """Refresh the tokens, or sign the device in again when the refresh token does not work."""
        if self.stored.refresh_token and self.stored.refresh_expires_at > self.clock():
            try:
                answer = await self.stub.RefreshTokens(
                    profile_pb2.RefreshTokensRequest(refresh_token=self.stored.refresh_token), timeout=SIGN_IN_TIMEOUT
                )
                self._keep(answer.tokens, self.stored.player_id)
                return
            except grpc.aio.AioRpcError as error:
                if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise
                log.info("refresh refused (%s); signing in again", error.code().name)
        await self.sign_in()

    async def sign_in(self) -> profile_pb2.Profile:
        """Sign this device in as a guest (the same device is the same guest account)."""
        answer = await self.stub.SignInGuest(
            profile_pb2.SignInGuestRequest(device_id=self.stored.device_id), timeout=SIGN_IN_TIMEOUT
        )
        self._keep(answer.tokens, answer.profile.player_id)
        return answer.profile

    def _keep(self, tokens: profile_pb2.TokenPair, player_id: str) -> None:
        self.stored.player_id = player_id
        self.stored.access_token = tokens.access_token
        self.stored.access_expires_at = tokens.access_expires_at.ToNanoseconds() / 1e9
        self.stored.refresh_token = tokens.refresh_token
        self.stored.refresh_expires_at = tokens.refresh_expires_at.ToNanoseconds() / 1e9
        save(self.directory, self.stored)

    async def profile(self) -> profile_pb2.Profile:
        """The player's own profile (level, stats, preferences)."""
        answer = await self.stub.GetProfile(profile_pb2.GetProfileRequest(), metadata=await self.metadata(), timeout=SIGN_IN_TIMEOUT)
        return answer.profile
