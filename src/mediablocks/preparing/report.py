"""What `prepare_with_report` says happened: one `BlockReport` per media block, in a
`PrepareReport` with the notes about the request as a whole."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..changes import Change
from ..limits import ByteMeasure


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
