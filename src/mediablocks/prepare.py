"""Fit the media of a conversation to one provider's limits, and say what changed.

`prepare` returns new messages (the inputs are frozen and stay untouched) whose every media block
the provider accepts, or raises `DoesNotFitError` listing every block that cannot be made to fit.
`prepare_with_report` also returns a `PrepareReport`; `prepare_block` fits a single block.

What is read: blocks over bytes or a local path. Blocks over a URL or a provider file id are
counted (image count, the many-images pixel cap) but not read unless ``read_urls=True``: the
provider fetches them and applies its own limits.

The order (details in ``docs/preparation.md``):

1. Kinds and types the provider cannot carry at all (a video for Anthropic) are problems.
2. Images go through `mediablocks.images.fit_image` with the request's image count, so the
   count-dependent pixel caps apply (Anthropic: 2000 px with more than 20 images).
3. Audio and video the provider refuses, or that is over its limits, is converted with PyAV
   (the ``[av]`` extra; ``docs/conversion.md``): audio re-encoded, resampled or split into
   timestamped chunks; video transcoded to H.264 MP4, or sampled as timestamped JPEG frames
   for providers taking no video. A block that becomes several goes through `_Slot.replace_with`.
4. Durations (audio, video) and PDF page counts come from `mediablocks.probe.probe`; sizes are
   counted the way the provider counts them (raw or base64).
5. Request totals: image count, all images' bytes, documents, pages, seconds, request bytes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ._checks import check_bool, check_size
from .blocks import ContentBlock, ToolResultBlock
from .changes import DEFAULT_MAX_FRAMES, DEFAULT_MAX_IMAGE_PIXELS, Change
from .convert.documents import DEFAULT_MAX_PAGES, DEFAULT_MAX_TEXT_CHARS, DocumentStrategy
from .errors import (
    DecodeError,
    DoesNotFitError,
    ImageBombError,
    InvalidOptionError,
    MediaBlocksError,
)
from .limits import ByteMeasure, ProviderLimits, limits_for, measured_size
from .media import AudioBlock, ImageBlock, MediaBlock, VideoBlock
from .messages import Message
from .mime import mime_kind
from .policy import FetchPolicy
from .request_budget import (
    SHARE_FLOOR_SIDE,
    image_budget,
    text_bytes,
    water_level,
)
from .sources import BytesSource, FileIdSource, URLSource

__all__ = [
    "BlockReport",
    "PrepareOptions",
    "PrepareReport",
    "prepare",
    "prepare_block",
    "prepare_with_report",
]

AudioStrategy = Literal["convert", "raise"]
"""``"convert"``: re-encode audio the provider refuses (PyAV); ``"raise"``: refuse it."""
VideoStrategy = Literal["convert", "frames", "raise"]
"""``"convert"``: transcode where the provider takes video, frames where it does not;
``"frames"``: always frames; ``"raise"``: refuse what does not fit as it is."""

DEFAULT_TIME_BUDGET = 120.0
"""Seconds of wall time one audio or video conversion may take."""

_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "audio/mpeg": ".mp3",
    "audio/wav": ".wav",
    "audio/flac": ".flac",
    "video/mp4": ".mp4",
}


class _BrokenImageError(DecodeError):
    """An image whose bytes do not decode (truncated, corrupt): raised at once by `prepare`,
    naming the message and block, like a decompression bomb (`ImageBombError`)."""


@dataclass(frozen=True)
class PrepareOptions:
    """How `prepare` may change media.

    ``optimal_size``: scale images down to the size the provider would scale them to anyway
    (Anthropic 1568 px long edge and about 1.15 MP, OpenAI 2048 px box and 768 px short side),
    saving upload and tokens. ``strip_metadata``: remove EXIF (GPS, serial numbers, dates), XMP,
    IPTC and comments; the ICC profile is kept. ``convert``: convert formats the provider refuses
    (HEIC, AVIF, TIFF, BMP... to PNG or JPEG; audio and video with PyAV). ``max_image_pixels``: the
    decompression-bomb limit. ``read_urls``: fetch URL blocks (under ``policy``) to fit them too.

    Audio and video (``docs/conversion.md``; the converter is the ``[av]`` extra, PyAV):
    ``audio`` and ``video`` are the strategies (`AudioStrategy`, `VideoStrategy`; with
    ``convert=False`` both act as ``"raise"``). ``max_frames``: frames taken from one video
    (also capped by the provider's image count); ``frame_interval``: seconds between frames
    (``None``: ``max_frames`` spread evenly). ``max_audio_seconds``: the longest single audio
    block; longer audio is split into ordered chunks, or refused with ``allow_split=False``.
    ``max_video_seconds``: a transcoded video is cut there. ``time_budget``: seconds of wall
    time one conversion may take.

    Documents (``docs/documents.md``; extras ``[pdf]`` and ``[office]``): ``documents`` is the
    strategy (`DocumentStrategy`: ``"convert"``, ``"pages"``, ``"text"`` or ``"raise"``; with
    ``convert=False`` it acts as ``"raise"``). ``max_pages``: PDF pages sent as images (or read
    as text) per document; ``max_text_chars``: characters of text per document. A document over
    a budget is cut and the cut reported, or refused with ``truncate_documents=False``.
    """

    optimal_size: bool = False
    strip_metadata: bool = True
    convert: bool = True
    max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS
    read_urls: bool = False
    policy: FetchPolicy | None = None
    audio: AudioStrategy = "convert"
    video: VideoStrategy = "convert"
    max_frames: int = DEFAULT_MAX_FRAMES
    frame_interval: float | None = None
    max_audio_seconds: float | None = None
    max_video_seconds: float | None = None
    allow_split: bool = True
    time_budget: float | None = DEFAULT_TIME_BUDGET
    documents: DocumentStrategy = "convert"
    max_pages: int = DEFAULT_MAX_PAGES
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    truncate_documents: bool = True

    def __post_init__(self) -> None:
        if self.documents not in ("convert", "pages", "text", "raise"):
            raise InvalidOptionError(
                f"documents={self.documents!r}: 'convert', 'pages', 'text' or 'raise'"
            )
        for count in ("max_pages", "max_text_chars"):
            if not isinstance(getattr(self, count), int) or getattr(self, count) < 1:
                raise InvalidOptionError(f"{count}={getattr(self, count)!r}: at least 1")
        if self.audio not in ("convert", "raise"):
            raise InvalidOptionError(f"audio={self.audio!r}: 'convert' or 'raise'")
        if self.video not in ("convert", "frames", "raise"):
            raise InvalidOptionError(f"video={self.video!r}: 'convert', 'frames' or 'raise'")
        frames = self.max_frames
        if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
            raise InvalidOptionError(f"max_frames={frames!r}: a whole number, at least 1")
        for name in ("frame_interval", "max_audio_seconds", "max_video_seconds", "time_budget"):
            value = getattr(self, name)
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if value is not None and not (number and value > 0):
                raise InvalidOptionError(f"{name}={value!r}: a positive number of seconds")
        # Checked here, so `prepare`'s keywords are too: "5", NaN or True never reach a limit.
        for name in ("optimal_size", "strip_metadata", "convert", "read_urls", "allow_split"):
            check_bool("PrepareOptions", name, getattr(self, name))
        check_size("PrepareOptions", "max_image_pixels", self.max_image_pixels, optional=True)
        if self.policy is not None and not isinstance(self.policy, FetchPolicy):
            raise InvalidOptionError(
                "PrepareOptions.policy must be a FetchPolicy or None, "
                f"not a {type(self.policy).__name__}"
            )


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

    @property
    def changed(self) -> list[BlockReport]:
        """The blocks that changed."""
        return [entry for entry in self.blocks if entry.changed]

    def __str__(self) -> str:
        lines = [f"prepared for {self.provider}" + (f" ({self.model})" if self.model else "")]
        lines.extend(f"  {entry}" for entry in self.blocks)
        lines.extend(f"  request: {note}" for note in self.notes)
        return "\n".join(lines)


# -- public entry points --------------------------------------------------------------------------


def prepare(
    messages: Sequence[Message],
    provider: str,
    *,
    model: str | None = None,
    optimal_size: bool = False,
    strip_metadata: bool = True,
    convert: bool = True,
    max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS,
    read_urls: bool = False,
    policy: FetchPolicy | None = None,
    audio: AudioStrategy = "convert",
    video: VideoStrategy = "convert",
    max_frames: int = DEFAULT_MAX_FRAMES,
    frame_interval: float | None = None,
    max_audio_seconds: float | None = None,
    max_video_seconds: float | None = None,
    allow_split: bool = True,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    documents: DocumentStrategy = "convert",
    max_pages: int = DEFAULT_MAX_PAGES,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    truncate_documents: bool = True,
) -> list[Message]:
    """New messages whose media every limit of ``provider`` (and ``model``) accepts.

    Raises `DoesNotFitError` listing every block that cannot be fitted (``.problems``),
    `ImageBombError` at once for an image (or video frames) over the pixel limit and `DecodeError`
    at once for an image whose bytes do not decode (even one that would be sent untouched). Images
    together are fitted to the request's byte limits (see `PrepareReport.notes`). Audio and video
    are converted as ``audio`` and ``video`` say; a video may become timestamped frames and an
    audio block ordered chunks (see `PrepareOptions` and ``docs/conversion.md``). A document the
    provider does not take becomes page images (PDF) or text, as ``documents`` says.
    """
    prepared, _ = prepare_with_report(
        messages,
        provider,
        model=model,
        optimal_size=optimal_size,
        strip_metadata=strip_metadata,
        convert=convert,
        max_image_pixels=max_image_pixels,
        read_urls=read_urls,
        policy=policy,
        audio=audio,
        video=video,
        max_frames=max_frames,
        frame_interval=frame_interval,
        max_audio_seconds=max_audio_seconds,
        max_video_seconds=max_video_seconds,
        allow_split=allow_split,
        time_budget=time_budget,
        documents=documents,
        max_pages=max_pages,
        max_text_chars=max_text_chars,
        truncate_documents=truncate_documents,
    )
    return prepared


def prepare_with_report(
    messages: Sequence[Message],
    provider: str,
    *,
    model: str | None = None,
    optimal_size: bool = False,
    strip_metadata: bool = True,
    convert: bool = True,
    max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS,
    read_urls: bool = False,
    policy: FetchPolicy | None = None,
    audio: AudioStrategy = "convert",
    video: VideoStrategy = "convert",
    max_frames: int = DEFAULT_MAX_FRAMES,
    frame_interval: float | None = None,
    max_audio_seconds: float | None = None,
    max_video_seconds: float | None = None,
    allow_split: bool = True,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    documents: DocumentStrategy = "convert",
    max_pages: int = DEFAULT_MAX_PAGES,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    truncate_documents: bool = True,
) -> tuple[list[Message], PrepareReport]:
    """`prepare`, plus a `PrepareReport` of what changed in each media block."""
    limits = limits_for(provider, model)
    options = PrepareOptions(
        optimal_size=optimal_size,
        strip_metadata=strip_metadata,
        convert=convert,
        max_image_pixels=max_image_pixels,
        read_urls=read_urls,
        policy=policy,
        audio=audio,
        video=video,
        max_frames=max_frames,
        frame_interval=frame_interval,
        max_audio_seconds=max_audio_seconds,
        max_video_seconds=max_video_seconds,
        allow_split=allow_split,
        time_budget=time_budget,
        documents=documents,
        max_pages=max_pages,
        max_text_chars=max_text_chars,
        truncate_documents=truncate_documents,
    )
    return _Preparation(limits, options).run(list(messages))


def prepare_block(
    block: MediaBlock,
    provider: str,
    *,
    model: str | None = None,
    image_count: int = 1,
    optimal_size: bool = False,
    strip_metadata: bool = True,
    convert: bool = True,
    max_image_pixels: int | None = DEFAULT_MAX_IMAGE_PIXELS,
    policy: FetchPolicy | None = None,
    audio: AudioStrategy = "convert",
    video: VideoStrategy = "convert",
    max_frames: int = DEFAULT_MAX_FRAMES,
    frame_interval: float | None = None,
    max_audio_seconds: float | None = None,
    max_video_seconds: float | None = None,
    allow_split: bool = True,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    documents: DocumentStrategy = "convert",
    max_pages: int = DEFAULT_MAX_PAGES,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
    truncate_documents: bool = True,
) -> tuple[MediaBlock, list[Change]]:
    """Fit one block (as if its request held ``image_count`` images); the same block if it fits.

    Request totals (image count, pages, seconds across blocks) are not checked here. Raises
    `DoesNotFitError` (with one problem), `ImageBombError` or `DecodeError` (a broken image);
    also `DoesNotFitError` when the block would become several (video frames, audio chunks) or a
    document would become page images or text: `prepare` splices those in.
    """
    check_size("prepare_block", "image_count", image_count)
    limits = limits_for(provider, model)
    options = PrepareOptions(
        optimal_size=optimal_size,
        strip_metadata=strip_metadata,
        convert=convert,
        max_image_pixels=max_image_pixels,
        read_urls=True,
        policy=policy,
        audio=audio,
        video=video,
        max_frames=max_frames,
        frame_interval=frame_interval,
        max_audio_seconds=max_audio_seconds,
        max_video_seconds=max_video_seconds,
        allow_split=allow_split,
        time_budget=time_budget,
        documents=documents,
        max_pages=max_pages,
        max_text_chars=max_text_chars,
        truncate_documents=truncate_documents,
    )
    run = _Preparation(limits, options)
    run.image_count = image_count
    slot = _Slot(0, 0, None, block)
    run.fit(slot, image_count)
    run.check_totals([slot])
    run.raise_problems()
    if slot.replacement is not None:
        raise DoesNotFitError(
            f"{block.describe()}: becomes {len(slot.replacement)} blocks for "
            f"{limits.provider} ({'; '.join(map(str, slot.changes))}); prepare_block returns "
            "one block: use prepare or prepare_with_report, or video='raise' / documents='raise'"
        )
    return slot.result, list(slot.changes)


# -- the work -------------------------------------------------------------------------------------


@dataclass
class _Slot:
    """One media block found in the messages, and what became of it."""

    message_index: int
    block_index: int
    item_index: int | None
    block: MediaBlock
    result: MediaBlock = None  # type: ignore[assignment]
    changes: tuple[Change, ...] = ()
    size: int | None = None  # raw bytes after preparation (None: not read)
    size_before: int | None = None
    seconds: float | None = None
    pages: int | None = None
    problems: list[str] = field(default_factory=list)
    replacement: list[ContentBlock] | None = None
    """Blocks that take this block's place, in order (``None``: ``result`` alone does)."""
    parts: list[_Slot] = field(default_factory=list)
    """One slot per media block of ``replacement``, counted in the request totals."""

    def __post_init__(self) -> None:
        self.result = self.block

    def replace_with(self, blocks: Sequence[ContentBlock], changes: Sequence[Change]) -> None:
        """Put ``blocks`` (text and media, in order) where this one block was.

        The one way a media block becomes several (video frames with their timestamps, audio
        chunks with their offsets, PDF pages): `_rebuild` splices them into the message or tool
        result, and each media block among them counts in the request totals as a part.
        """
        self.replacement = list(blocks)
        self.changes = tuple(changes)
        self.parts = []
        for block in self.replacement:
            if isinstance(block, MediaBlock):
                part = _Slot(self.message_index, self.block_index, self.item_index, block)
                part.size = part.size_before = _local_size(block)
                self.parts.append(part)
        self.size = sum(part.size or 0 for part in self.parts)

    @property
    def where(self) -> str:
        text = f"message {self.message_index}, block {self.block_index}"
        if self.item_index is not None:
            text += f", item {self.item_index}"
        return f"{text}: {self.block.describe()}"


def _local_size(block: MediaBlock) -> int | None:
    return len(block.source.data) if isinstance(block.source, BytesSource) else None


def _counted(slots: list[_Slot]) -> list[_Slot]:
    """The slots the request totals count: a replaced block counts as its parts."""
    counted: list[_Slot] = []
    for slot in slots:
        counted.extend(slot.parts if slot.replacement is not None else [slot])
    return counted


def _kind(block: MediaBlock) -> str:
    if isinstance(block, ImageBlock):
        return "image"
    if isinstance(block, AudioBlock):
        return "audio"
    if isinstance(block, VideoBlock):
        return "video"
    return "document" if mime_kind(block.mime_type) == "file" else mime_kind(block.mime_type)


class _Preparation:
    def __init__(self, limits: ProviderLimits, options: PrepareOptions) -> None:
        self.limits = limits
        self.options = options
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.text_bytes = 0  # JSON bytes of the non-media content, counted by `run`
        self.image_count = 0  # images in the request before any video became frames
        self.frames_taken = 0
        self.planned: dict[int, tuple[int, str]] = {}  # id(slot) -> (raw byte cap, reason)

    # -- walking the messages --

    def run(self, messages: list[Message]) -> tuple[list[Message], PrepareReport]:
        slots = list(_find_media(messages))
        image_count = sum(1 for slot in slots if _kind(slot.block) == "image")
        self.text_bytes = text_bytes(messages)
        self.image_count = image_count
        self.plan_image_shares(slots, image_count)
        for slot in slots:
            self.fit(slot, image_count)
        self.share_image_bytes(slots, image_count)
        self.check_totals(slots)
        self.raise_problems()
        report = PrepareReport(
            self.limits.provider,
            self.limits.model,
            tuple(self.report_entry(slot) for slot in slots),
            tuple(self.notes),
        )
        return _rebuild(messages, slots), report

    def raise_problems(self) -> None:
        if self.problems:
            count = len(self.problems)
            listing = "\n".join(f"  - {problem}" for problem in self.problems)
            raise DoesNotFitError(
                f"{count} problem{'s' if count > 1 else ''} fitting media to "
                f"{self.limits.provider}:\n{listing}",
                self.problems,
            )

    def report_entry(self, slot: _Slot) -> BlockReport:
        measure = self.measure_of(slot.block)
        before = slot.size_before
        after = slot.size
        return BlockReport(
            slot.message_index,
            slot.block_index,
            slot.item_index,
            slot.block.describe(),
            slot.changes,
            None if before is None else measured_size(before, measure),
            None if after is None else measured_size(after, measure),
            measure,
            tuple(_describe(block) for block in slot.replacement or ()),
        )

    def measure_of(self, block: MediaBlock) -> ByteMeasure:
        kind = _kind(block)
        if kind == "image":
            return self.limits.image_bytes_measure
        if kind == "audio":
            return self.limits.audio_bytes_measure
        if kind == "video":
            return self.limits.video_bytes_measure
        return self.limits.document_bytes_measure

    # -- one block --

    def readable(self, block: MediaBlock) -> bool:
        if isinstance(block.source, FileIdSource):
            return False
        return not isinstance(block.source, URLSource) or self.options.read_urls

    def fit(self, slot: _Slot, image_count: int) -> None:
        block = slot.block
        kind = _kind(block)
        if not self.readable(block):
            if not self.limits.types_for(kind):
                hint = _needed(kind)
                if (
                    kind == "video"
                    and self.limits.image_types
                    and isinstance(block.source, URLSource)
                ):
                    hint = " (read_urls=True lets prepare fetch it and send frames)"
                elif kind == "document" and isinstance(block.source, URLSource):
                    hint = " (read_urls=True lets prepare fetch it and send page images or text)"
                self.problems.append(
                    f"{slot.where}: {self.limits.provider} takes no {kind} input{hint}"
                )
            return
        try:
            data = block.read(self.options.policy)
            slot.size_before = slot.size = len(data)
            if kind == "image":
                self.fit_image(slot, data, image_count)
            elif kind == "audio":
                self.fit_audio(slot, data)
            elif kind == "video":
                self.fit_video(slot, data)
            else:
                self.fit_document(slot, data)
        except (ImageBombError, _BrokenImageError):
            raise
        except MediaBlocksError as exc:
            self.problems.append(f"{slot.where}: {_reason(exc, block)}")

    def refuse_type(self, slot: _Slot, kind: str) -> bool:
        """Record a problem when the provider takes no such kind or type; True if it did."""
        accepted = self.limits.types_for(kind)
        mime = slot.result.mime_type
        if mime in accepted:
            return False
        name = self.limits.provider
        if not accepted:
            self.problems.append(f"{slot.where}: {name} takes no {kind} input{_needed(kind)}")
        else:
            self.problems.append(
                f"{slot.where}: {name} takes {kind} as {', '.join(sorted(accepted))}, not {mime}"
            )
        return True

    def fit_image(
        self,
        slot: _Slot,
        data: bytes,
        image_count: int,
        max_bytes: int | None = None,
        min_side: int | None = None,
    ) -> None:
        if not self.limits.image_types:
            self.problems.append(f"{slot.where}: {self.limits.provider} takes no image input")
            return
        from .images import ImageTarget, fit_image  # Pillow loads with the first image

        planned = self.planned.get(id(slot)) if max_bytes is None else None
        if planned is not None:  # a share given before fitting (`plan_image_shares`)
            max_bytes = measured_size(planned[0], self.limits.image_bytes_measure)
            min_side = SHARE_FLOOR_SIDE
        target = ImageTarget.from_limits(
            self.limits,
            image_count=image_count,
            optimal_size=self.options.optimal_size,
            max_bytes=max_bytes,
            min_side=min_side,
        )
        try:
            fitted = fit_image(
                data,
                target,
                mime_type=slot.block.mime_type,
                strip_metadata=self.options.strip_metadata,
                convert=self.options.convert,
                max_image_pixels=self.options.max_image_pixels,
                what=slot.block.describe(),
            )
        except DecodeError as exc:  # raised at once: the bytes are broken, not too large
            raise _BrokenImageError(f"{slot.where}: {_reason(exc, slot.block)}") from None
        if fitted.unchanged:
            return
        changes = fitted.changes
        if planned is not None:
            changes += (self.shared_change(*planned),)
        slot.result = _replaced(slot.block, fitted.data, fitted.mime_type, changes, self)
        slot.changes = changes
        slot.size = len(fitted.data)

    def fit_audio(self, slot: _Slot, data: bytes) -> None:
        """Audio as it is when it fits; else re-encoded, resampled or split (`_prepare_av`)."""
        if self.options.audio == "raise" or not self.options.convert or not self.limits.audio_types:
            self.fit_timed(slot, "audio")
            return
        if self.fits_as_is(slot, "audio", self.options.max_audio_seconds):
            self.fit_timed(slot, "audio")
            return
        from . import _prepare_av

        _prepare_av.convert_audio_slot(self, slot, data)

    def fit_video(self, slot: _Slot, data: bytes) -> None:
        """Video as it is when it fits; else transcoded (providers taking video) or frames."""
        strategy: str = self.options.video if self.options.convert else "raise"
        if strategy == "convert" and self.limits.video_types:
            if self.fits_as_is(slot, "video", self.options.max_video_seconds):
                from . import _prepare_av

                _probe(slot.block, self.options.policy)  # a broken header: its own message

                if _prepare_av.codec_is_safe(self, slot, data):
                    self.fit_timed(slot, "video")
                    return
            strategy = "transcode"
        elif strategy == "convert":
            strategy = "frames"
        if strategy == "raise":
            self.fit_timed(slot, "video")
            return
        from . import _prepare_av

        if strategy == "transcode":
            _prepare_av.transcode_video_slot(self, slot, data)
        else:
            _prepare_av.video_frames_slot(self, slot, data)

    def fits_as_is(self, slot: _Slot, kind: str, max_seconds: float | None) -> bool:
        """True when the block's type, bytes and duration need no conversion."""
        if slot.block.mime_type not in self.limits.types_for(kind):
            return False
        limit = self.byte_ceiling(kind)
        if limit is not None and slot.size is not None and slot.size > limit:
            return False
        if max_seconds is not None:
            info = _probe(slot.block, self.options.policy)
            if info is None or info.duration is None or info.duration > max_seconds:
                return False
        return True

    def byte_ceiling(self, kind: str) -> int | None:
        """The largest raw size one block of ``kind`` may have: its own limit and the request's."""
        limits = self.limits
        own = limits.max_audio_bytes if kind == "audio" else limits.max_video_bytes
        measure = limits.audio_bytes_measure if kind == "audio" else limits.video_bytes_measure
        ceilings = [
            _raw_bytes(own, measure),
            _raw_bytes(limits.max_request_bytes, limits.request_bytes_measure),
        ]
        known = [value for value in ceilings if value is not None]
        return min(known) if known else None

    def fit_timed(self, slot: _Slot, kind: str) -> None:
        if self.refuse_type(slot, kind):
            return
        limit = self.limits.max_audio_bytes if kind == "audio" else self.limits.max_video_bytes
        self.check_bytes(slot, limit, self.measure_of(slot.block), kind)
        info = _probe(slot.result, self.options.policy)
        slot.seconds = None if info is None else info.duration

    def fit_document(self, slot: _Slot, data: bytes) -> None:
        """A document as it is where the provider takes it (and the strategy keeps it); else
        page images or text from `mediablocks.convert.documents`, spliced in its place."""
        options = self.options
        if options.convert and options.documents != "raise":
            from .convert.documents import convert_document

            converted = convert_document(
                slot.block,
                data,
                self.limits,
                strategy=options.documents,
                image_count=self.image_count,
                max_pages=options.max_pages,
                max_chars=options.max_text_chars,
                truncate=options.truncate_documents,
            )
            if converted is not None:
                slot.replace_with(converted.blocks, converted.changes)
                return
        if self.refuse_type(slot, "document"):
            return
        self.check_bytes(
            slot, self.limits.max_document_bytes, self.limits.document_bytes_measure, "document"
        )
        if slot.result.mime_type == "application/pdf":
            info = _probe(slot.result, self.options.policy)
            slot.pages = None if info is None else info.pages

    def check_bytes(self, slot: _Slot, limit: int | None, measure: ByteMeasure, kind: str) -> None:
        if limit is None or slot.size is None:
            return
        counted = measured_size(slot.size, measure)
        if counted > limit:
            self.problems.append(
                f"{slot.where}: {counted:,} bytes ({measure}) is over {self.limits.provider}'s "
                f"{kind} limit of {limit:,} bytes"
            )

    # -- request totals --

    def share_image_bytes(self, slots: list[_Slot], image_count: int) -> None:
        """Make all images together fit the request: its media bytes and the image total.

        The budgets are the provider's request limit (less the other media and a reserve for
        the text and JSON around them, `REQUEST_RESERVE`) and its all-images limit, both in raw
        bytes. When the images are over, the largest are capped at one share each (water
        filling: images under the share stay as they are) and fitted again from their prepared
        bytes: quality first, then resolution, never below `SHARE_FLOOR_SIDE` px long edge or
        JPEG quality 40. A round that lands over (the sizes are predicted) shares again. Every
        refitted block gets a ``shared`` change; what happened is in `PrepareReport.notes`.
        """
        images = [s for s in slots if _kind(s.block) == "image" and s.size is not None]
        budget, reason = self.image_budget(slots, images)
        if budget is None or not images:
            return
        measure = self.limits.image_bytes_measure
        for _ in range(3):
            sizes = [slot.size or 0 for slot in images]
            total = sum(sizes)
            if total <= budget:
                return
            cap = water_level(sizes, budget)
            over = [slot for slot in images if (slot.size or 0) > cap]
            if cap < 1 or not over:
                self.problems.append(
                    f"{len(images)} images do not fit {reason}: {budget:,} raw bytes are left "
                    "for them"
                )
                return
            self.notes.append(
                f"{len(images)} images, {measured_size(total, measure):,} bytes ({measure}), are "
                f"over {reason}: the {len(over)} largest were fitted to at most "
                f"{measured_size(cap, measure):,} bytes each"
            )
            for slot in over:
                if not self.refit_to_share(slot, image_count, cap, reason):
                    return  # a problem is recorded; check_totals reports the total too

    def shared_change(self, cap: int, reason: str) -> Change:
        measure = self.limits.image_bytes_measure
        return Change(
            "shared", f"fitted to {measured_size(cap, measure):,} bytes ({measure}): {reason}"
        )

    def plan_image_shares(self, slots: list[_Slot], image_count: int) -> None:
        """Before fitting: when the images are predicted to be over the request's budget, give
        the largest their share up front, so each is fitted (decoded, encoded) once.

        The prediction is each file's size scaled by the pixel limits it will be fitted to (from
        its header) and capped by the per-image limit. `share_image_bytes` corrects, after
        fitting, whatever the prediction missed. Any image that cannot be read leaves the plan
        to `fit`, which reports it.
        """
        images = [s for s in slots if _kind(s.block) == "image" and self.readable(s.block)]
        if not images or not self.limits.image_types:
            return
        from .images import ImageTarget, image_size  # Pillow loads with the first image

        target = ImageTarget.from_limits(
            self.limits, image_count=image_count, optimal_size=self.options.optimal_size
        )
        predicted: list[int] = []
        others = 0
        try:
            for slot in images:
                data = slot.block.read(self.options.policy)
                width, height = image_size(
                    data, what=slot.where, max_image_pixels=self.options.max_image_pixels
                )
                size = int(len(data) * min(1.0, target.scale_for(width, height)) ** 2)
                predicted.append(min(size, target.max_raw_bytes or size))
            for slot in slots:
                if _kind(slot.block) != "image" and self.readable(slot.block):
                    others += len(slot.block.read(self.options.policy))
        except MediaBlocksError:
            return
        budget, reason = self.budget_for(
            measured_size(others, self.limits.request_bytes_measure), len(images)
        )
        if budget is None or sum(predicted) <= budget:
            return
        cap = water_level(predicted, budget)
        if cap < 1:
            return  # no room at all: fitting and then sharing say so
        over = [slot for slot, size in zip(images, predicted, strict=True) if size > cap]
        for slot in over:
            self.planned[id(slot)] = (cap, reason)
        measure = self.limits.image_bytes_measure
        self.notes.append(
            f"{len(images)} images, predicted at {measured_size(sum(predicted), measure):,} bytes "
            f"({measure}) once fitted, are over {reason}: the {len(over)} largest were fitted "
            f"to at most {measured_size(cap, measure):,} bytes each"
        )

    def image_budget(self, slots: list[_Slot], images: list[_Slot]) -> tuple[int | None, str]:
        """The raw bytes all read images may take together, and which limit says so."""
        measure = self.limits.request_bytes_measure
        others = sum(
            measured_size(slot.size or 0, measure)
            for slot in slots
            if slot.size is not None and all(slot is not image for image in images)
        )
        return self.budget_for(others, len(images))

    def budget_for(self, others: int, count: int) -> tuple[int | None, str]:
        """The raw bytes ``count`` images may take beside ``others`` (see `image_budget`)."""
        return image_budget(self.limits, others, count, self.text_bytes)

    def refit_to_share(self, slot: _Slot, image_count: int, cap: int, reason: str) -> bool:
        """Fit one image again under ``cap`` raw bytes; False (and a problem) if it cannot."""
        measure = self.limits.image_bytes_measure
        try:
            data = slot.result.read(self.options.policy)
            earlier = tuple(c for c in slot.changes if c.kind not in ("re-encoded", "shared"))
            refit = _Slot(slot.message_index, slot.block_index, slot.item_index, slot.result)
            self.fit_image(
                refit,
                data,
                image_count,
                max_bytes=measured_size(cap, measure),
                min_side=SHARE_FLOOR_SIDE,
            )
        except (ImageBombError, _BrokenImageError):
            raise
        except MediaBlocksError as exc:
            self.problems.append(
                f"{slot.where}: does not fit its share of {reason}: {_reason(exc, slot.block)}"
            )
            return False
        changes = earlier + refit.changes + (self.shared_change(cap, reason),)
        fitted = refit.result
        slot.result = _replaced(slot.block, fitted.read(), fitted.mime_type, changes, self)
        slot.size, slot.changes = refit.size, changes
        return True

    def check_totals(self, slots: list[_Slot]) -> None:
        slots = _counted(slots)
        limits = self.limits
        name = limits.provider
        by_kind: dict[str, list[_Slot]] = {"image": [], "audio": [], "video": [], "document": []}
        for slot in slots:
            by_kind.setdefault(_kind(slot.block), []).append(slot)
        images = by_kind["image"]
        if limits.max_images is not None and len(images) > limits.max_images:
            self.problems.append(
                f"the request holds {len(images)} images; {name} takes at most {limits.max_images}"
            )
        documents = by_kind["document"]
        if limits.max_documents is not None and len(documents) > limits.max_documents:
            self.problems.append(
                f"the request holds {len(documents)} documents; {name} takes at most "
                f"{limits.max_documents}"
            )
        self.check_total(
            by_kind["image"],
            lambda s: measured_size(s.size, limits.image_bytes_measure) if s.size else None,
            limits.max_total_image_bytes,
            f"bytes of images ({limits.image_bytes_measure})",
        )
        self.check_total(documents, lambda s: s.pages, limits.max_document_pages, "PDF pages")
        self.check_total(
            by_kind["audio"], lambda s: s.seconds, limits.max_audio_seconds, "seconds of audio"
        )
        self.check_total(
            by_kind["video"], lambda s: s.seconds, limits.max_video_seconds, "seconds of video"
        )
        inline = [s for s in slots if s.size is not None]
        self.check_total(
            inline,
            lambda s: measured_size(s.size or 0, limits.request_bytes_measure),
            limits.max_request_bytes,
            f"request bytes of media ({limits.request_bytes_measure})",
        )

    def check_total(self, slots: list[_Slot], amount: Any, limit: float | None, unit: str) -> None:
        if limit is None:
            return
        counted = [(slot, amount(slot)) for slot in slots]
        counted = [(slot, value) for slot, value in counted if value is not None]
        total = sum(value for _, value in counted)
        if total > limit:
            parts = ", ".join(f"{slot.where} ({_number(value)})" for slot, value in counted)
            self.problems.append(
                f"{_number(total)} {unit} in one request is over {self.limits.provider}'s limit "
                f"of {_number(limit)}: {parts}"
            )


def _needed(kind: str) -> str:
    """What sending a kind the provider takes in no form would need."""
    if kind == "audio":
        return (
            " in any form (transcribe it first, or use a provider taking audio: an OpenAI "
            "audio model, Gemini, Bedrock, Mistral)"
        )
    return ""


def _describe(block: ContentBlock) -> str:
    if isinstance(block, MediaBlock):
        return block.describe()
    text = getattr(block, "text", "")
    return f"TextBlock({text!r})" if text else type(block).__name__


def _number(value: float) -> str:
    return (
        f"{value:,.1f}" if isinstance(value, float) and not value.is_integer() else f"{value:,.0f}"
    )


def _reason(exc: MediaBlocksError, block: MediaBlock) -> str:
    text = str(exc)
    prefix = block.describe() + ": "
    return text[len(prefix) :] if text.startswith(prefix) else text


def _probe(block: MediaBlock, policy: FetchPolicy | None) -> Any:
    """Media facts from the headers (None: facts unknown, e.g. a provider file id).

    A broken header (`DecodeError`: a truncated MP4, a PDF without a page tree) propagates: the
    provider would refuse the file too, so it is a problem, not a pass.
    """
    from .probe import probe

    try:
        return probe(block, policy)
    except DecodeError:
        raise
    except MediaBlocksError:
        return None


def _replaced(
    block: MediaBlock,
    data: bytes,
    mime: str,
    changes: tuple[Change, ...],
    run: _Preparation,
) -> MediaBlock:
    """A block of the same class over new bytes, keeping the caller's fields and notes."""
    filename = block.filename
    if filename and mime != block.mime_type and mime in _EXTENSIONS:
        filename = os.path.splitext(filename)[0] + _EXTENSIONS[mime]
    fresh = type(block).from_source(BytesSource(data=data), mime, filename, block.strict)
    note = {
        "provider": run.limits.provider,
        "changes": [str(change) for change in changes],
    }
    metadata = {**block.metadata, "prepared": note}
    keep = {
        name: getattr(block, name)
        for name in type(block).model_fields
        if name not in ("source", "declared_mime", "filename", "strict", "metadata")
    }
    return fresh.model_copy(update={**keep, "metadata": metadata})


def _raw_bytes(limit: int | None, measure: ByteMeasure) -> int | None:
    """The largest raw size whose measured size is within ``limit``."""
    if limit is None:
        return None
    return (limit // 4) * 3 if measure == "base64" else limit


# -- finding and replacing blocks -----------------------------------------------------------------


def _find_media(messages: list[Message]) -> list[_Slot]:
    found: list[_Slot] = []
    for m, message in enumerate(messages):
        for b, block in enumerate(message.content):
            if isinstance(block, MediaBlock):
                found.append(_Slot(m, b, None, block))
            elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
                for i, item in enumerate(block.content):
                    if isinstance(item, MediaBlock):
                        found.append(_Slot(m, b, i, item))
    return found


def _rebuild(messages: list[Message], slots: list[_Slot]) -> list[Message]:
    """New messages with each changed slot's block replaced: by ``result``, or spliced out into
    its ``replacement`` blocks (in a message's content or a tool result's content alike)."""
    changed = [s for s in slots if s.result is not s.block or s.replacement is not None]
    if not changed:
        return list(messages)
    by_message: dict[int, list[_Slot]] = {}
    for slot in changed:
        by_message.setdefault(slot.message_index, []).append(slot)
    result = list(messages)
    for m, message_slots in by_message.items():
        content: list[Any] = list(result[m].content)
        nested: dict[int, list[_Slot]] = {}
        for slot in message_slots:
            if slot.item_index is None:
                content[slot.block_index] = _blocks_of(slot)
            else:
                nested.setdefault(slot.block_index, []).append(slot)
        for b, item_slots in nested.items():
            tool_result = content[b]
            assert isinstance(tool_result, ToolResultBlock)
            items: list[Any] = list(tool_result.content)
            for slot in item_slots:
                items[slot.item_index or 0] = _blocks_of(slot)
            content[b] = tool_result.model_copy(update={"content": _flattened(items)})
        result[m] = result[m].model_copy(update={"content": _flattened(content)})
    return result


def _blocks_of(slot: _Slot) -> list[Any]:
    return [slot.result] if slot.replacement is None else list(slot.replacement)


def _flattened(content: list[Any]) -> list[Any]:
    """Content with each list of replacement blocks spliced in where its block was."""
    flat: list[Any] = []
    for entry in content:
        flat.extend(entry if isinstance(entry, list) else [entry])
    return flat
