"""The rules every name, password and setting follows (services/profile/players.py), without a server."""

from __future__ import annotations

import grpc
import pytest
from cardroom.profile.v1 import profile_pb2

from shared.errors import ServiceError

from services.profile import players
from services.profile.players import Player, Preferences, profile_change


def refused_field(check, *args) -> str:  # type: ignore[no-untyped-def]
    """The field named by the INVALID_ARGUMENT refusal ``check(*args)`` raises."""
    with pytest.raises(ServiceError) as caught:
        check(*args)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.reason == "INVALID_ARGUMENT"
    return caught.value.metadata["field"]


@pytest.mark.parametrize("name", ["abc", "Alice_99", "x-y-z", "A" * 32])
def test_usernames_of_letters_digits_underscore_dash_are_kept_lowercased(name: str) -> None:
    assert players.username(name) == name.lower()


@pytest.mark.parametrize("name", ["", "ab", "A" * 33, "has space", "dot.ted", "émile", "tab\t", "new\n", "abc\n"])
def test_other_usernames_are_refused(name: str) -> None:
    assert refused_field(players.username, name) == "username"


def test_passwords_need_eight_characters_and_at_most_the_limit() -> None:
    assert players.password("12345678") == "12345678"
    assert refused_field(players.password, "1234567") == "password"
    assert refused_field(players.password, "x" * (players.PASSWORD_LIMIT + 1)) == "password"


def test_display_names_are_trimmed_and_one_to_thirty_two_characters() -> None:
    assert players.display_name("  Ann  ") == "Ann"
    assert players.display_name("é" * 32) == "é" * 32
    for bad in ["", "   ", "x" * 33, "bell\x07", "zero\u200bwidth"]:
        assert refused_field(players.display_name, bad) == "display_name"


def test_device_ids_are_one_to_128_characters() -> None:
    assert players.device_id("d" * 128) == "d" * 128
    assert refused_field(players.device_id, "") == "device_id"
    assert refused_field(players.device_id, "d" * 129) == "device_id"


def test_player_ids_are_uuid_hex() -> None:
    assert players.player_id("0" * 32) == "0" * 32
    assert refused_field(players.player_id, "not-an-id") == "player_id"


def test_preferences_match_the_proto_message() -> None:
    assert Preferences.names() == tuple(profile_pb2.Preferences.DESCRIPTOR.fields_by_name)


def test_stored_preferences_fall_back_to_defaults_and_ignore_unknown_keys() -> None:
    stored = {"sound": False, "retired_setting": 1}
    assert Preferences.from_json(stored) == Preferences(sound=False)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("language", "english!"),
        ("language", ""),
        ("card_style", "Large Print"),
        ("table_colour", ""),
        ("reveal_seconds", 0),
        ("reveal_seconds", 31),
    ],
)
def test_bad_preference_values_are_refused_naming_the_setting(name: str, value: object) -> None:
    assert refused_field(players.preference, name, value) == f"preferences.{name}"


def test_good_preference_values_pass() -> None:
    assert players.preference("language", "pt-BR") == "pt-BR"
    assert players.preference("reveal_seconds", 30) == 30
    assert players.preference("card_style", "large_print") == "large_print"


def test_a_mask_changes_only_the_fields_it_names() -> None:
    requested = Preferences(sound=False, haptics=False, reveal_seconds=9)
    change = profile_change(["preferences.sound"], "ignored", requested)
    player = Player("0" * 32, "Ann", None, 0.0)
    assert change.apply(player) == Player("0" * 32, "Ann", None, 0.0, Preferences(sound=False))


def test_the_preferences_path_replaces_every_setting() -> None:
    requested = Preferences(
        language="fr", sound=False, haptics=False, card_style="large_print", table_colour="blue", reveal_seconds=5
    )
    change = profile_change(["preferences", "display_name"], "  Zoé ", requested)
    assert change.apply(Player("0" * 32, "Ann", None, 0.0)) == Player("0" * 32, "Zoé", None, 0.0, requested)


@pytest.mark.parametrize(
    "paths",
    [[], ["username"], ["preferences.colour"], ["update_mask"], ["display_name", "player_id"], ["preferences."]],
)
def test_masks_naming_nothing_or_unknown_fields_are_refused(paths: list[str]) -> None:
    assert refused_field(profile_change, paths, "Ann", Preferences()) == "update_mask"


def test_a_whole_preferences_replacement_with_an_unset_setting_is_refused() -> None:
    empty = Preferences(language="", card_style="", table_colour="", reveal_seconds=0)
    assert refused_field(profile_change, ["preferences"], "", empty).startswith("preferences.")
