"""ProfileService over a real socket, on SQLite and PostgreSQL: guests, accounts, sign-in, token rotation,
sign-out, profiles, and every refusal with its status, its reason, and nothing changed in the database."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable

import grpc
import pytest
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST
from cardroom.profile.v1 import profile_pb2, profile_pb2_grpc
from google.protobuf import field_mask_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy import text

from shared.auth import REFRESH_SECONDS, TokenIssuer
from shared.db import make_engine
from shared.errors import error_info

from services.profile.app import create_server
from services.profile.servicer import SERVICE
from tests.conftest import TEST_SECRET
from tests.support.servers import bearer, issuer, service_metadata, settings_for

# argon2's cheapest parameters: the tests check behaviour, not the cost of guessing.
CHEAP_HASHER = PasswordHasher.from_parameters(CHEAPEST)
PASSWORD = "correct horse battery"
# Signs with a secret that is not the platform's: every token it makes is forged.
FORGER = TokenIssuer("someone else's secret, long enough to pass")
Metadata = list[tuple[str, str]]


@dataclass(frozen=True)
class Refusal:
    code: grpc.StatusCode
    reason: str
    message: str
    metadata: dict[str, str] = field(default_factory=dict)


async def refusal(call: Awaitable[Any]) -> Refusal:
    """How a call that must fail was refused."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    assert info is not None, "every refusal carries an ErrorInfo"
    assert info.domain == "profile.cardroom"
    return Refusal(caught.value.code(), info.reason, caught.value.details() or "", dict(info.metadata))


@dataclass
class Profile:
    """A running profile server, a client of it, and a view of its database."""

    stub: profile_pb2_grpc.ProfileServiceStub
    channel: grpc.aio.Channel
    database_url: str

    def snapshot(self) -> list[tuple[Any, ...]]:
        """Every stored row, to check that a refusal changed nothing."""
        engine = make_engine(self.database_url)
        try:
            with engine.connect() as connection:
                players = connection.execute(text("SELECT * FROM players ORDER BY player_id")).all()
                sessions = connection.execute(text("SELECT * FROM refresh_sessions ORDER BY jti")).all()
        finally:
            engine.dispose()
        return [tuple(row) for row in [*players, *sessions]]

    async def guest(self, device_id: str = "device-1", display_name: str = "") -> profile_pb2.SignInGuestResponse:
        request = profile_pb2.SignInGuestRequest(device_id=device_id, display_name=display_name)
        return await self.stub.SignInGuest(request)

    async def account(
        self, username: str = "Alice", password: str = PASSWORD, display_name: str = "", as_guest: str = ""
    ) -> profile_pb2.CreateAccountResponse:
        """A new account; with a guest's access token ``as_guest``, that guest upgraded."""
        request = profile_pb2.CreateAccountRequest(username=username, password=password, display_name=display_name)
        return await self.stub.CreateAccount(request, metadata=bearer(as_guest) if as_guest else None)

    async def sign_in(self, username: str, password: str = PASSWORD) -> profile_pb2.SignInResponse:
        return await self.stub.SignIn(profile_pb2.SignInRequest(username=username, password=password))

    async def refresh(self, refresh_token: str) -> profile_pb2.TokenPair:
        request = profile_pb2.RefreshTokensRequest(refresh_token=refresh_token)
        return (await self.stub.RefreshTokens(request)).tokens

    async def sign_out(self, metadata: Metadata | None, refresh_token: str) -> profile_pb2.SignOutResponse:
        return await self.stub.SignOut(profile_pb2.SignOutRequest(refresh_token=refresh_token), metadata=metadata)

    async def get(self, metadata: Metadata | None, player_id: str = "") -> profile_pb2.Profile:
        request = profile_pb2.GetProfileRequest(player_id=player_id)
        return (await self.stub.GetProfile(request, metadata=metadata)).profile

    async def own_profile(self, access_token: str) -> profile_pb2.Profile:
        return await self.get(bearer(access_token))

    async def update(self, metadata: Metadata | None, request: profile_pb2.UpdateProfileRequest) -> profile_pb2.Profile:
        return (await self.stub.UpdateProfile(request, metadata=metadata)).profile

    async def refused_without_change(self, call: Awaitable[Any]) -> Refusal:
        before = self.snapshot()
        refused = await refusal(call)
        assert self.snapshot() == before, "a refused call changed the database"
        return refused


async def start_profile(database_url: str, hasher: PasswordHasher = CHEAP_HASHER) -> tuple[Any, Profile]:
    app = await create_server(settings_for("profile", database_url), password_hasher=hasher)
    port = await app.start("127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    return app, Profile(profile_pb2_grpc.ProfileServiceStub(channel), channel, database_url)


@pytest.fixture
async def profile(database_url: str) -> AsyncIterator[Profile]:
    app, client = await start_profile(database_url)
    yield client
    await client.channel.close()
    await app.stop(0)


def mask(*paths: str) -> field_mask_pb2.FieldMask:
    return field_mask_pb2.FieldMask(paths=list(paths))


def assert_invalid(refused: Refusal, bad_field: str) -> None:
    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
    assert refused.metadata == {"field": bad_field}


# -- the server -------------------------------------------------------------------------------------


async def test_the_health_service_answers_serving(profile: Profile) -> None:
    health = health_pb2_grpc.HealthStub(profile.channel)
    for name in ("", SERVICE):
        answer = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


# -- guests -----------------------------------------------------------------------------------------


async def test_a_device_signing_in_twice_is_the_same_guest(profile: Profile) -> None:
    first = await profile.guest("phone-1")
    again = await profile.guest("phone-1")
    assert first.created and not again.created
    assert again.profile.player_id == first.profile.player_id
    assert first.profile.guest and first.profile.username == ""
    assert first.profile.display_name.startswith("Guest-")
    assert (await profile.own_profile(again.tokens.access_token)).player_id == first.profile.player_id


async def test_another_device_is_another_guest(profile: Profile) -> None:
    first = await profile.guest("phone-1")
    other = await profile.guest("phone-2")
    assert other.created and other.profile.player_id != first.profile.player_id


async def test_a_new_guest_may_choose_its_name(profile: Profile) -> None:
    signed_in = await profile.guest("phone-3", "  Lucky Lou  ")
    assert signed_in.profile.display_name == "Lucky Lou"
    assert (await profile.guest("phone-3", "Another Name")).profile.display_name == "Lucky Lou"


async def test_the_tokens_say_when_they_expire(profile: Profile) -> None:
    tokens = (await profile.guest()).tokens
    now = time.time()
    assert now < tokens.access_expires_at.seconds <= now + 15 * 60 + 1
    assert tokens.refresh_expires_at.seconds > now + REFRESH_SECONDS - 60


@pytest.mark.parametrize(
    ("device_id", "display_name", "bad_field"),
    [
        ("", "", "device_id"),
        ("d" * 129, "", "device_id"),
        ("phone", "   ", "display_name"),
        ("phone", "n" * 33, "display_name"),
    ],
)
async def test_a_bad_guest_sign_in_is_refused(
    profile: Profile, device_id: str, display_name: str, bad_field: str
) -> None:
    await profile.guest("someone-else")
    assert_invalid(await profile.refused_without_change(profile.guest(device_id, display_name)), bad_field)


# -- accounts and sign-in ---------------------------------------------------------------------------


async def test_an_account_signs_in_with_its_name_in_any_case(profile: Profile) -> None:
    created = await profile.account("Alice", PASSWORD)
    assert created.profile.username == "alice"
    assert created.profile.display_name == "Alice"
    assert not created.profile.guest
    signed_in = await profile.sign_in("ALICE")
    assert signed_in.profile.player_id == created.profile.player_id
    assert (await profile.own_profile(signed_in.tokens.access_token)).username == "alice"


async def test_an_account_may_choose_its_display_name(profile: Profile) -> None:
    created = await profile.account("bob", PASSWORD, display_name=" Bob the Builder ")
    assert created.profile.display_name == "Bob the Builder"


@pytest.mark.parametrize(
    ("username", "password", "display_name", "bad_field"),
    [
        ("ab", PASSWORD, "", "username"),
        ("a" * 33, PASSWORD, "", "username"),
        ("no spaces", PASSWORD, "", "username"),
        ("", PASSWORD, "", "username"),
        ("carol", "short", "", "password"),
        ("carol", "", "", "password"),
        ("carol", PASSWORD, "x" * 33, "display_name"),
        ("carol", PASSWORD, "  ", "display_name"),
    ],
)
async def test_a_bad_account_is_refused(
    profile: Profile, username: str, password: str, display_name: str, bad_field: str
) -> None:
    await profile.account("existing")
    assert_invalid(await profile.refused_without_change(profile.account(username, password, display_name)), bad_field)


async def test_a_taken_username_is_refused_whatever_its_case(profile: Profile) -> None:
    await profile.account("Dana")
    for name in ("Dana", "dana", "DANA"):
        refused = await profile.refused_without_change(profile.account(name, "another password"))
        assert (refused.code, refused.reason) == (grpc.StatusCode.ALREADY_EXISTS, "CONFLICT")
        assert refused.metadata == {"field": "username"}


async def test_a_wrong_password_and_an_unknown_name_are_refused_alike(profile: Profile) -> None:
    await profile.account("erin", PASSWORD)
    wrong_password = await profile.refused_without_change(profile.sign_in("erin", "not the password"))
    unknown_name = await profile.refused_without_change(profile.sign_in("nobody", PASSWORD))
    assert wrong_password == unknown_name
    assert (wrong_password.code, wrong_password.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_CREDENTIALS")


async def test_a_sign_in_without_name_or_password_is_refused(profile: Profile) -> None:
    await profile.account("frank", PASSWORD)
    for username, password, bad_field in (("", PASSWORD, "username"), ("frank", "", "password")):
        assert_invalid(await profile.refused_without_change(profile.sign_in(username, password)), bad_field)


async def test_an_old_password_hash_is_replaced_at_sign_in(database_url: str) -> None:
    app, old = await start_profile(database_url)
    await old.account("gina", PASSWORD)
    [(old_hash,)] = [row[3:4] for row in old.snapshot() if row[2] == "gina"]
    await old.channel.close()
    await app.stop(0)
    stronger = PasswordHasher(time_cost=CHEAP_HASHER.time_cost + 1, memory_cost=CHEAP_HASHER.memory_cost, parallelism=1)
    app, new = await start_profile(database_url, stronger)
    try:
        await new.sign_in("gina")
        [(new_hash,)] = [row[3:4] for row in new.snapshot() if row[2] == "gina"]
        assert new_hash != old_hash and not stronger.check_needs_rehash(new_hash)
        await new.sign_in("gina")
    finally:
        await new.channel.close()
        await app.stop(0)


# -- upgrading a guest ------------------------------------------------------------------------------


async def test_upgrading_a_guest_keeps_its_player_and_preferences(profile: Profile) -> None:
    guest = await profile.guest("phone-9")
    quiet = profile_pb2.UpdateProfileRequest(
        preferences=profile_pb2.Preferences(sound=False), update_mask=mask("preferences.sound")
    )
    await profile.update(bearer(guest.tokens.access_token), quiet)
    upgraded = await profile.account("Hana", PASSWORD, as_guest=guest.tokens.access_token)
    assert upgraded.profile.player_id == guest.profile.player_id
    assert not upgraded.profile.guest and upgraded.profile.username == "hana"
    assert upgraded.profile.created_at == guest.profile.created_at
    assert upgraded.profile.preferences.sound is False
    assert (await profile.sign_in("hana")).profile.player_id == guest.profile.player_id
    device_again = await profile.guest("phone-9")
    assert device_again.created, "the device alone no longer opens the account"
    assert device_again.profile.player_id != guest.profile.player_id


async def test_an_account_cannot_be_upgraded_again(profile: Profile) -> None:
    guest = await profile.guest("phone-10")
    await profile.account("ivan", PASSWORD, as_guest=guest.tokens.access_token)
    refused = await profile.refused_without_change(profile.account("ivan2", as_guest=guest.tokens.access_token))
    assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "CONFLICT")


async def test_upgrading_to_a_taken_name_changes_nothing(profile: Profile) -> None:
    await profile.account("jade", PASSWORD)
    guest = await profile.guest("phone-11")
    refused = await profile.refused_without_change(profile.account("JADE", as_guest=guest.tokens.access_token))
    assert (refused.code, refused.reason) == (grpc.StatusCode.ALREADY_EXISTS, "CONFLICT")
    assert (await profile.own_profile(guest.tokens.access_token)).guest


async def test_create_account_with_a_forged_or_service_token_is_refused(profile: Profile) -> None:
    forged = FORGER.access("0" * 32).token
    refused = await profile.refused_without_change(profile.account("kim", as_guest=forged))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    service_token = issuer().service("matchmaking").token
    refused = await profile.refused_without_change(profile.account("kim", as_guest=service_token))
    assert (refused.code, refused.reason) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")


# -- refresh and sign-out ---------------------------------------------------------------------------


async def test_refreshing_rotates_the_refresh_token(profile: Profile) -> None:
    first = (await profile.guest()).tokens
    second = await profile.refresh(first.refresh_token)
    assert second.refresh_token != first.refresh_token
    assert (await profile.own_profile(second.access_token)).guest
    refused = await profile.refused_without_change(profile.refresh(first.refresh_token))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    third = await profile.refresh(second.refresh_token)
    assert third.refresh_token not in (first.refresh_token, second.refresh_token)


async def test_an_expired_forged_or_wrong_kind_of_refresh_token_is_refused(profile: Profile) -> None:
    signed_in = await profile.guest()
    player_id = signed_in.profile.player_id
    a_month_ago = TokenIssuer(TEST_SECRET, clock=lambda: time.time() - REFRESH_SECONDS - 3600)
    cases = [
        (a_month_ago.refresh(player_id).token, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED"),
        (FORGER.refresh(player_id).token, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID"),
        (signed_in.tokens.access_token, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID"),
        (issuer().refresh(player_id).token, grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID"),  # signed, never issued
        ("not a token", grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID"),
        ("", grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT"),
    ]
    for token, code, reason in cases:
        refused = await profile.refused_without_change(profile.refresh(token))
        assert (refused.code, refused.reason) == (code, reason), token


async def test_signing_out_ends_only_that_session(profile: Profile) -> None:
    await profile.account("lena", PASSWORD)
    phone = (await profile.sign_in("lena")).tokens
    tablet = (await profile.sign_in("lena")).tokens
    await profile.sign_out(bearer(phone.access_token), phone.refresh_token)
    refused = await profile.refused_without_change(profile.refresh(phone.refresh_token))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    await profile.sign_out(bearer(phone.access_token), phone.refresh_token)
    assert (await profile.refresh(tablet.refresh_token)).access_token


async def test_signing_out_is_refused_for_another_players_token_or_without_a_token(profile: Profile) -> None:
    me = await profile.guest("phone-a")
    mine, mine_id = me.tokens, me.profile.player_id
    theirs = (await profile.guest("phone-b")).tokens
    refused = await profile.refused_without_change(profile.sign_out(bearer(mine.access_token), theirs.refresh_token))
    assert (refused.code, refused.reason) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")
    refused = await profile.refused_without_change(profile.sign_out(None, theirs.refresh_token))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    for bad in ("", "not a token", FORGER.refresh(mine_id).token):
        refused = await profile.refused_without_change(profile.sign_out(bearer(mine.access_token), bad))
        assert_invalid(refused, "refresh_token")
    assert (await profile.refresh(theirs.refresh_token)).access_token


# -- profiles ---------------------------------------------------------------------------------------


async def test_only_the_players_own_profile_shows_preferences(profile: Profile) -> None:
    me = await profile.guest("phone-me", "Me")
    other = await profile.guest("phone-other", "Other")
    own = await profile.own_profile(me.tokens.access_token)
    assert own.HasField("preferences") and own.preferences.language == "en"
    seen = await profile.get(bearer(me.tokens.access_token), other.profile.player_id)
    assert seen.display_name == "Other" and seen.guest
    assert not seen.HasField("preferences")
    assert not seen.HasField("progress") and not seen.HasField("rating"), "no rating service is configured"


async def test_a_service_reads_a_named_profile_without_preferences(profile: Profile) -> None:
    player = await profile.guest("phone-s", "Sam")
    seen = await profile.get(service_metadata(), player.profile.player_id)
    assert seen.display_name == "Sam" and not seen.HasField("preferences")
    assert_invalid(await profile.refused_without_change(profile.get(service_metadata())), "player_id")


async def test_an_unknown_or_malformed_player_is_refused(profile: Profile) -> None:
    me = bearer((await profile.guest()).tokens.access_token)
    refused = await profile.refused_without_change(profile.get(me, "f" * 32))
    assert (refused.code, refused.reason) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
    assert_invalid(await profile.refused_without_change(profile.get(me, "robot-1")), "player_id")


async def test_get_profile_refuses_missing_expired_and_forged_tokens(profile: Profile) -> None:
    signed_in = await profile.guest()
    player_id = signed_in.profile.player_id
    an_hour_ago = TokenIssuer(TEST_SECRET, clock=lambda: time.time() - 3600)
    cases: list[tuple[Metadata | None, str]] = [
        (None, "TOKEN_MISSING"),
        ([("authorization", "Basic dXNlcjpwYXNz")], "TOKEN_MISSING"),
        (bearer(an_hour_ago.access(player_id).token), "TOKEN_EXPIRED"),
        (bearer(FORGER.access(player_id).token), "TOKEN_INVALID"),
        (bearer(signed_in.tokens.access_token[:-4] + "AAAA"), "TOKEN_INVALID"),
        (bearer(signed_in.tokens.refresh_token), "TOKEN_INVALID"),
        (bearer(issuer().seat(player_id, "table-1", 0).token), "TOKEN_INVALID"),
    ]
    for metadata, reason in cases:
        refused = await profile.refused_without_change(profile.get(metadata))
        assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, reason), metadata


async def test_updating_changes_only_the_masked_fields(profile: Profile) -> None:
    tokens = (await profile.guest("phone-u", "Before")).tokens
    request = profile_pb2.UpdateProfileRequest(
        display_name="  After  ",
        preferences=profile_pb2.Preferences(sound=False, haptics=False, language="fr", reveal_seconds=7),
        update_mask=mask("display_name", "preferences.haptics", "preferences.reveal_seconds"),
    )
    updated = await profile.update(bearer(tokens.access_token), request)
    assert updated.display_name == "After"
    preferences = updated.preferences
    assert (preferences.sound, preferences.haptics) == (True, False)
    assert (preferences.language, preferences.reveal_seconds) == ("en", 7)
    assert await profile.own_profile(tokens.access_token) == updated


async def test_the_preferences_path_replaces_all_settings(profile: Profile) -> None:
    tokens = (await profile.guest("phone-p")).tokens
    wanted = profile_pb2.Preferences(
        language="pt-BR", sound=False, haptics=True, card_style="large_print", table_colour="blue", reveal_seconds=10
    )
    request = profile_pb2.UpdateProfileRequest(preferences=wanted, update_mask=mask("preferences"))
    updated = await profile.update(bearer(tokens.access_token), request)
    assert updated.preferences == wanted
    assert updated.display_name.startswith("Guest-")


@pytest.mark.parametrize(
    ("request_fields", "bad_field"),
    [
        ({"update_mask": mask()}, "update_mask"),
        ({"update_mask": mask("username")}, "update_mask"),
        ({"update_mask": mask("preferences.colour")}, "update_mask"),
        ({"update_mask": mask("display_name", "guest")}, "update_mask"),
        ({"display_name": "   ", "update_mask": mask("display_name")}, "display_name"),
        ({"display_name": "n" * 33, "update_mask": mask("display_name")}, "display_name"),
        (
            {
                "display_name": "Fine",
                "preferences": {"reveal_seconds": 0},
                "update_mask": mask("display_name", "preferences.reveal_seconds"),
            },
            "preferences.reveal_seconds",
        ),
        (
            {"preferences": {"language": "english!"}, "update_mask": mask("preferences.language")},
            "preferences.language",
        ),
        ({"preferences": {"sound": False}, "update_mask": mask("preferences")}, "preferences.language"),
    ],
)
async def test_a_bad_update_is_refused(profile: Profile, request_fields: dict[str, Any], bad_field: str) -> None:
    tokens = (await profile.guest()).tokens
    fields = dict(request_fields)
    if "preferences" in fields:
        fields["preferences"] = profile_pb2.Preferences(**fields["preferences"])
    call = profile.update(bearer(tokens.access_token), profile_pb2.UpdateProfileRequest(**fields))
    assert_invalid(await profile.refused_without_change(call), bad_field)


async def test_updating_is_for_players_only(profile: Profile) -> None:
    await profile.guest()
    request = profile_pb2.UpdateProfileRequest(display_name="Bot", update_mask=mask("display_name"))
    refused = await profile.refused_without_change(profile.update(service_metadata(), request))
    assert (refused.code, refused.reason) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")
    refused = await profile.refused_without_change(profile.update(None, request))
    assert (refused.code, refused.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
