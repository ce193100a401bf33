"""What `prepare_with_report` says happened: one `BlockReport` per media block, in a
`PrepareReport` with the notes about the request as a whole."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..changes import Change
from ..limits import ByteMeasure
from ..usage import Usage


@dataclass(frozen=True)
class BlockReport:
    """What happened to one media block.

    ``message_index`` and ``block_index`` locate it; ``item_index`` is its index inside a tool
    result's content (``None`` for a block directly in the message). Bytes are counted as the
    provider counts them (``measure``); ``None`` when the block was not read (URL, file id).
    """

    message_index: int
    block_index: int
    item_index: int | None
    block: str
    changes: tuple[Change, ...] = ()
    bytes_before: int | None = None
    bytes_after: int | None = None
    measure: ByteMeasure = "raw"
    replaced_by: tuple[str, ...] = ()
    """When the block became several (frames, audio chunks, pages): each new block, in order."""

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def __str__(self) -> str:
        where = f"message {self.message_index}, block {self.block_index}"
        if self.item_index is not None:
            where += f", item {self.item_index}"
        if not self.changes:
            return f"{where}: {self.block} unchanged"
        sizes = ""
        if self.bytes_before is not None and self.bytes_after is not None:
            sizes = f" ({self.bytes_before:,} -> {self.bytes_after:,} bytes {self.measure})"
        parts = f", became {len(self.replaced_by)} blocks" if self.replaced_by else ""
        return f"{where}: {self.block}: " + "; ".join(map(str, self.changes)) + sizes + parts


@dataclass(frozen=True)
class PrepareReport:
    """Every media block `prepare` looked at, in message order."""

    provider: str
    model: str | None
    blocks: tuple[BlockReport, ...] = ()
    notes: tuple[str, ...] = ()
    """What was done for the request as a whole (images sharing its byte budget)."""
    model_assumed: bool = False
    """True when no model was given and ``model`` is the one `prepare` assumed: the provider's
    most restrictive current model (the notes say so too)."""

    @property
    def changed(self) -> list[BlockReport]:
        """The blocks that changed."""
        return [entry for entry in self.blocks if entry.changed]

    @property
    def dropped(self) -> list[BlockReport]:
        """The blocks removed, with nothing in their place, because the provider takes them in
        no form (``unsupported="drop"``). A video whose audio track alone was dropped is not
        one: it is replaced by its frames."""
        return [
            e
            for e in self.blocks
            if not e.replaced_by and any(c.kind == "dropped" for c in e.changes)
        ]

    @property
    def noted(self) -> list[BlockReport]:
        """The blocks replaced by a note telling the model what was left out
        (``unsupported="note"``)."""
        return [e for e in self.blocks if any(c.kind == "noted" for c in e.changes)]

    @property
    def transcribed(self) -> list[BlockReport]:
        """The blocks a transcript stands in for (or whose audio track it does, for frames)."""
        return [e for e in self.blocks if any(c.kind == "transcribed" for c in e.changes)]

    @property
    def described(self) -> list[BlockReport]:
        """The blocks a description stands in for."""
        return [e for e in self.blocks if any(c.kind == "described" for c in e.changes)]

    @property
    def stand_in_calls(self) -> int:
        """Transcriber and describer calls made (the stand-in cache did not have the answer)."""
        return sum(1 for c in self._stand_in_changes() if not c.cached)

    @property
    def stand_in_cache_hits(self) -> int:
        """Transcripts and descriptions the stand-in cache answered, with no call."""
        return sum(1 for c in self._stand_in_changes() if c.cached)

    @property
    def stand_in_usage(self) -> Usage | None:
        """What the calls made cost, added up as the callables reported it (None: nothing
        reported)."""
        total: Usage | None = None
        for change in self._stand_in_changes():
            if change.usage is not None:
                total = change.usage if total is None else total + change.usage
        return total

    def _stand_in_changes(self) -> list[Change]:
        return [c for e in self.blocks for c in e.changes if c.kind in ("transcribed", "described")]

    def __str__(self) -> str:
        model = f" ({self.model}{', assumed' if self.model_assumed else ''})" if self.model else ""
        lines = [f"prepared for {self.provider}{model}"]
        lines.extend(f"  {entry}" for entry in self.blocks)
        lines.extend(f"  request: {note}" for note in self.notes)
        return "\n".join(lines)


def assumed_in(report: PrepareReport, model: str) -> PrepareReport:
    """``report`` saying that ``model`` was assumed because none was given."""
    note = (
        f"no model given: fitted for {model}, {report.provider}'s most restrictive current "
        "model (pass model= to fit for another)"
    )
    return replace(report, model=model, model_assumed=True, notes=(note, *report.notes))
