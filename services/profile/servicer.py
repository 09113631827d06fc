"""ProfileService over gRPC: converts requests, asks the accounts and rating, converts back."""

from __future__ import annotations

import grpc
from cardroom.profile.v1 import profile_pb2, profile_pb2_grpc
from google.protobuf import timestamp_pb2

from shared.auth import Claims
from shared.errors import ServiceError, invalid
from shared.server import caller, require_player

from services.profile import players
from services.profile.accounts import Accounts, SignedIn, TokenPair
from services.profile.players import Player, Preferences
from services.profile.ratings import RatingReader

SERVICE = profile_pb2.DESCRIPTOR.services_by_name["ProfileService"].full_name
# Callable without a token (the interceptor still checks a token that is sent, e.g. a guest's on CreateAccount).
PUBLIC_METHODS = tuple(f"/{SERVICE}/{name}" for name in ("SignInGuest", "CreateAccount", "SignIn", "RefreshTokens"))


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def token_pair(pair: TokenPair) -> profile_pb2.TokenPair:
    return profile_pb2.TokenPair(
        access_token=pair.access.token,
        access_expires_at=timestamp(pair.access.expires_at),
        refresh_token=pair.refresh.token,
        refresh_expires_at=timestamp(pair.refresh.expires_at),
    )


def preferences_message(preferences: Preferences) -> profile_pb2.Preferences:
    return profile_pb2.Preferences(**preferences.to_json())


def preferences_value(message: profile_pb2.Preferences) -> Preferences:
    return Preferences(**{name: getattr(message, name) for name in Preferences.names()})


def profile_message(player: Player, own: bool) -> profile_pb2.Profile:
    """The profile as shown: preferences only to the player themself."""
    message = profile_pb2.Profile(
        player_id=player.player_id,
        display_name=player.display_name,
        guest=player.guest,
        username=player.username or "",
        created_at=timestamp(player.created_at),
    )
    if own:
        message.preferences.CopyFrom(preferences_message(player.preferences))
    return message


def optional_caller() -> Claims | None:
    """The caller of a public method, if a token was sent."""
    try:
        return caller()
    except ServiceError:
        return None


class ProfileServicer(profile_pb2_grpc.ProfileServiceServicer):
    def __init__(self, accounts: Accounts, ratings: RatingReader) -> None:
        self.accounts = accounts
        self.ratings = ratings

    async def SignInGuest(
        self, request: profile_pb2.SignInGuestRequest, context: grpc.aio.ServicerContext
    ) -> profile_pb2.SignInGuestResponse:
        signed_in = await self.accounts.sign_in_guest(request.device_id, request.display_name)
        return profile_pb2.SignInGuestResponse(
            tokens=token_pair(signed_in.tokens), profile=_own_profile(signed_in), created=signed_in.created
        )

    async def CreateAccount(
        self, request: profile_pb2.CreateAccountRequest, context: grpc.aio.ServicerContext
    ) -> profile_pb2.CreateAccountResponse:
        signed_in = await self.accounts.create_account(
            request.username, request.password, request.display_name, optional_caller()
        )
        return profile_pb2.CreateAccountResponse(tokens=token_pair(signed_in.tokens), profile=_own_profile(signed_in))

    async def SignIn(
        self, request: profile_pb2.SignInRequest, context: grpc.aio.ServicerContext
    ) -> profile_pb2.SignInResponse:
        signed_in = await self.accounts.sign_in(request.username, request.password)
        return profile_pb2.SignInResponse(tokens=token_pair(signed_in.tokens), profile=_own_profile(signed_in))

    async def RefreshTokens(
        self, request: profile_pb2.RefreshTokensRequest, context: grpc.aio.ServicerContext
    ) -> profile_pb2.RefreshTokensResponse:
        return profile_pb2.RefreshTokensResponse(tokens=token_pair(await self.accounts.refresh(request.refresh_token)))

    async def SignOut(
        self, request: profile_pb2.SignOutRequest, context: grpc.aio.ServicerContext
    ) -> profile_pb2.SignOutResponse:
        await self.accounts.sign_out(require_player(), request.refresh_token)
        return profile_pb2.SignOutResponse()

    async def GetProfile(
        self, request: profile_pb2.GetProfileRequest, context: grpc.aio.ServicerContext
    ) -> profile_pb2.GetProfileResponse:
        asker = caller()
        if not request.player_id and asker.is_service:
            raise invalid("player_id", "a service must name the player")
        player_id = request.player_id or asker.subject
        player = await self.accounts.profile(player_id)
        message = profile_message(player, own=player.player_id == asker.subject)
        standing = await self.ratings.standing(player.player_id)
        if standing.progress is not None:
            message.progress.CopyFrom(standing.progress)
        if standing.rating is not None:
            message.rating.CopyFrom(standing.rating)
        return profile_pb2.GetProfileResponse(profile=message)

    async def UpdateProfile(
        self, request: profile_pb2.UpdateProfileRequest, context: grpc.aio.ServicerContext
    ) -> profile_pb2.UpdateProfileResponse:
        holder = require_player()
        change = players.profile_change(
            list(request.update_mask.paths), request.display_name, preferences_value(request.preferences)
        )
        player = await self.accounts.update_profile(holder.subject, change)
        return profile_pb2.UpdateProfileResponse(profile=profile_message(player, own=True))


def _own_profile(signed_in: SignedIn) -> profile_pb2.Profile:
    return profile_message(signed_in.player, own=True)
