"""What a player is to the profile service, and the rules every name, password and setting must follow.

Pure: no database, no gRPC. Each check returns the value to keep (trimmed, lowercased) or raises
``invalid(field, message)``, so a refused request changes nothing. The limits follow the protos
(``protos/cardroom/profile/v1/profile.proto``).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Mapping

from shared.errors import invalid

DEVICE_ID_LIMIT = 128  # identifierForVendor is 36 characters; apps that make their own id get room to spare
USERNAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{3,32}")  # the proto: 3 to 32 letters, digits, "_" or "-"
PASSWORD_MINIMUM = 8  # the proto: at least 8 characters (NIST SP 800-63B's floor)
# Bounds the work one request can ask of the hasher; far beyond any passphrase a person types.
PASSWORD_LIMIT = 1024
DISPLAY_NAME_LIMIT = 32  # the proto: 1 to 32 characters, what fits beside a seat on a phone
PLAYER_ID_PATTERN = re.compile(r"[0-9a-f]{32}")  # uuid4().hex, the only ids profile hands out
# BCP 47's shape (language, then subtags of 1 to 8 letters or digits); 35 characters is RFC 5646's
# advice for the longest tag an implementation must keep.
LANGUAGE_PATTERN = re.compile(r"[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*")
LANGUAGE_LIMIT = 35
STYLE_PATTERN = re.compile(r"[a-z0-9_]{1,32}")  # names such as "classic", "large_print", "green"
# The seeds say a revealed card shows for "a few seconds"; 1 to 30 covers fast players and players
# who need time, without letting a setting keep a card face up for a whole turn clock.
REVEAL_SECONDS_RANGE = range(1, 31)


@dataclass(frozen=True)
class Preferences:
    """A player's settings, kept with the account; new players get these defaults."""

    language: str = "en"
    sound: bool = True
    haptics: bool = True
    card_style: str = "classic"
    table_colour: str = "green"
    reveal_seconds: int = 3

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> Preferences:
        """Stored settings over the defaults (settings added later fall back to their default)."""
        known = {name: stored[name] for name in cls.names() if name in stored}
        return cls(**known)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def with_values(self, values: Mapping[str, Any]) -> Preferences:
        return dataclasses.replace(self, **values)


@dataclass(frozen=True)
class Player:
    """One account: a guest (a device, no username) or a named account with a password."""

    player_id: str
    display_name: str
    username: str | None
    created_at: float
    preferences: Preferences = field(default_factory=Preferences)

    @property
    def guest(self) -> bool:
        return self.username is None


def device_id(value: str) -> str:
    if not 1 <= len(value) <= DEVICE_ID_LIMIT:
        raise invalid("device_id", f"device_id must be 1 to {DEVICE_ID_LIMIT} characters")
    return value


def username(value: str) -> str:
    """The username as stored and compared: lowercased, so that names are unique whatever their case."""
    if not USERNAME_PATTERN.fullmatch(value):
        raise invalid("username", 'username must be 3 to 32 letters, digits, "_" or "-"')
    return value.lower()


def password(value: str) -> str:
    if len(value) < PASSWORD_MINIMUM:
        raise invalid("password", f"password must be at least {PASSWORD_MINIMUM} characters")
    if len(value) > PASSWORD_LIMIT:
        raise invalid("password", f"password must be at most {PASSWORD_LIMIT} characters")
    return value


def display_name(value: str, field_name: str = "display_name") -> str:
    """The name trimmed of surrounding spaces; 1 to 32 characters, no control characters."""
    trimmed = value.strip()
    if not 1 <= len(trimmed) <= DISPLAY_NAME_LIMIT:
        raise invalid(field_name, f"display_name must be 1 to {DISPLAY_NAME_LIMIT} characters after trimming spaces")
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in trimmed):
        raise invalid(field_name, "display_name may not hold control or formatting characters")
    return trimmed


def player_id(value: str) -> str:
    if not PLAYER_ID_PATTERN.fullmatch(value):
        raise invalid("player_id", "player_id is not a player id")
    return value


def preference(name: str, value: Any) -> Any:
    """One setting checked by its name; raises for values a client may not store."""
    check = _PREFERENCE_CHECKS.get(name)
    if check is None:
        raise invalid("update_mask", f"preferences has no field {name!r}")
    message = check(value)
    if message:
        raise invalid(f"preferences.{name}", message)
    return value


def _language(value: str) -> str:
    if len(value) > LANGUAGE_LIMIT or not LANGUAGE_PATTERN.fullmatch(value):
        return 'language must be a BCP 47 language tag such as "en" or "pt-BR"'
    return ""


def _style(label: str) -> Any:
    def check(value: str) -> str:
        return "" if STYLE_PATTERN.fullmatch(value) else f"{label} must be 1 to 32 lowercase letters, digits or \"_\""

    return check


def _reveal_seconds(value: int) -> str:
    if value not in REVEAL_SECONDS_RANGE:
        return f"reveal_seconds must be {REVEAL_SECONDS_RANGE.start} to {REVEAL_SECONDS_RANGE.stop - 1}"
    return ""


def _any_flag(_value: bool) -> str:
    return ""


_PREFERENCE_CHECKS = {
    "language": _language,
    "sound": _any_flag,
    "haptics": _any_flag,
    "card_style": _style("card_style"),
    "table_colour": _style("table_colour"),
    "reveal_seconds": _reveal_seconds,
}


@dataclass(frozen=True)
class ProfileChange:
    """What UpdateProfile asks for: the fields its mask names, already checked."""

    display_name: str | None = None
    preferences: dict[str, Any] = field(default_factory=dict)

    def apply(self, player: Player) -> Player:
        return dataclasses.replace(
            player,
            display_name=self.display_name if self.display_name is not None else player.display_name,
            preferences=player.preferences.with_values(self.preferences),
        )


# What UpdateProfile's mask may name (the proto): the display name, all settings, or one setting.
_MASK_PATHS = frozenset(["display_name", "preferences", *(f"preferences.{name}" for name in Preferences.names())])


def profile_change(paths: list[str], requested_name: str, requested: Preferences) -> ProfileChange:
    """Check an update mask and the values it names; unknown paths and bad values are refused.

    Paths: ``display_name``, ``preferences`` (every setting, replaced by the request's) or
    ``preferences.<setting>``.
    """
    if not paths:
        raise invalid("update_mask", "update_mask must name the fields to change")
    for path in paths:
        if path not in _MASK_PATHS:
            raise invalid("update_mask", f"update_mask may not name {path!r}")
    name = display_name(requested_name) if "display_name" in paths else None
    values: dict[str, Any] = {}
    for path in paths:
        if path == "preferences":
            values.update({key: preference(key, getattr(requested, key)) for key in Preferences.names()})
        elif path.startswith("preferences."):
            key = path.removeprefix("preferences.")
            values[key] = preference(key, getattr(requested, key))
    return ProfileChange(display_name=name, preferences=values)


def guest_name(new_player_id: str) -> str:
    """The name a guest who chose none is shown with: short, and told apart at one table."""
    return f"Guest-{new_player_id[:6]}"

