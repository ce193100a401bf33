"""What an encode dropped because the caller allowed it: `EncodeReport` and `Dropped`.

With ``unsupported="drop"``, a setting, tool schema keyword, tool choice or another provider's
server-side block that the target cannot carry is left out instead of raising; each one is
recorded here (`mb.encode_with_report` returns it), so nothing vanishes unannounced.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import UnsupportedSettingError

if TYPE_CHECKING:
    from ._options import EncodeOptions

__all__ = ["Dropped", "DroppedWarning", "EncodeReport", "drop_or_raise"]


@dataclass(frozen=True)
class Dropped:
    """One thing left out of a request: what, why, and where (message and block index)."""

    what: str
    reason: str
    message: int | None = None
    position: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.message is not None:
            where = f" (message {self.message}"
            where += f", block {self.position})" if self.position is not None else ")"
        return f"{self.what}{where}: {self.reason}"


@dataclass
class EncodeReport:
    """Everything an encode dropped, in order."""

    dropped: list[Dropped] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.dropped)


def drop_or_raise(
    options: EncodeOptions,
    provider: str,
    what: str,
    reason: str,
    *,
    message: int | None = None,
    position: int | None = None,
    error: type[Exception] = UnsupportedSettingError,
) -> None:
    """Raise ``error`` naming ``what`` and why, unless the caller chose ``unsupported="drop"``:
    then record it in the report."""
    if options.unsupported != "drop":
        where = f" (message {message}, block {position})" if message is not None else ""
        raise error(
            f"{provider}: {what}{where}: {reason}; pass unsupported='drop' to leave it out "
            "and have it reported"
        )
    dropped = Dropped(what, reason, message, position)
    if options.report is not None:
        options.report.dropped.append(dropped)
    else:
        warnings.warn(f"{provider}: dropped {dropped}", DroppedWarning, stacklevel=4)


class DroppedWarning(UserWarning):
    """Emitted for each drop when the caller did not ask for a report (`encode_with_report`)."""
