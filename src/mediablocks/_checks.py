"""Validation of option values at construction: one error, `InvalidOptionError`, naming the option.

Options are checked where they are built (`FetchPolicy`, `PrepareOptions`, `EncodeOptions`...), so a
NaN, an infinity, a negative size, a ``True`` passed as a number or a ``"5"`` passed as a count is
refused at once with the option's name, instead of turning a limit off or failing later inside a
library call with a raw `TypeError` / `ValueError`.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import InvalidOptionError

__all__ = ["check_bool", "check_count", "check_seconds", "check_size", "check_text"]


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_size(owner: str, name: str, value: Any, *, optional: bool = False) -> None:
    """A positive whole number (bytes, pixels); ``None`` too when ``optional``."""
    if value is None and optional:
        return
    if not _is_int(value) or value <= 0:
        what = "an int" + (" or None" if optional else "")
        raise InvalidOptionError(f"{owner}.{name} must be positive ({what}), got {_shown(value)}")


def check_count(owner: str, name: str, value: Any) -> None:
    """A whole number >= 0 (redirects, offsets)."""
    if not _is_int(value) or value < 0:
        raise InvalidOptionError(f"{owner}.{name} must be an int >= 0, got {_shown(value)}")


def check_seconds(owner: str, name: str, value: Any) -> None:
    """A finite, positive number of seconds (int or float, not bool)."""
    number = (isinstance(value, (int, float))) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value <= 0:
        raise InvalidOptionError(
            f"{owner}.{name} must be a finite number of seconds > 0, got {_shown(value)}"
        )


def check_bool(owner: str, name: str, value: Any) -> None:
    """``True`` or ``False``, nothing merely truthy (``"no"`` is truthy)."""
    if not isinstance(value, bool):
        raise InvalidOptionError(f"{owner}.{name} must be True or False, got {_shown(value)}")


def check_text(owner: str, name: str, value: Any) -> None:
    """A string."""
    if not isinstance(value, str):
        raise InvalidOptionError(f"{owner}.{name} must be a str, got {_shown(value)}")
