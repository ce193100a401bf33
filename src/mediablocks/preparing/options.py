"""How `prepare` may change media: `PrepareOptions`, its strategies and defaults, checked once
when built so that no step has to check them again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from typing_extensions import TypedDict

from .._checks import check_bool, check_size
from ..changes import DEFAULT_MAX_FRAMES, DEFAULT_MAX_IMAGE_PIXELS
from ..convert.limits import AUTO as AUTO
from ..convert.limits import (
    DEFAULT_MAX_PAGES,
    DEFAULT_MAX_TEXT_CHARS,
    ConversionLimits,
    TimeBudget,
    check_time_budget,
)
from ..convert.limits import DEFAULT_TIME_BUDGET as DEFAULT_TIME_BUDGET
from ..convert.limits import DEFAULT_TOTAL_TIME_BUDGET as DEFAULT_TOTAL_TIME_BUDGET
from ..errors import InvalidOptionError
from ..fetching.policy import FetchPolicy
from ..standins.cache import StandInCache
from ..standins.types import Describer, Transcriber

AudioStrategy = Literal["convert", "raise"]
"""``"convert"``: re-encode audio the provider refuses (PyAV); ``"raise"``: refuse it."""
VideoStrategy = Literal["convert", "frames", "raise"]
"""``"convert"``: transcode where the provider takes video, frames where it does not;
``"frames"``: always frames; ``"raise"``: refuse what does not fit as it is."""

UnsupportedStrategy = Literal["raise", "drop", "note"]
"""What `prepare` does with a block the provider takes in no form (audio for Anthropic, video
for a provider taking neither video nor images) and no stand-in replaced: ``"raise"`` (the
default) lists it in the `DoesNotFitError`; ``"drop"`` removes it and reports it (change kind
``dropped``); ``"note"`` puts a short text in its place telling the model what was left out
(``[file report.pdf application/pdf: not readable by this model]``, change kind ``noted``)."""

DocumentStrategy = Literal["convert", "pages", "text", "raise"]
"""How `prepare` sends a document:

- ``"convert"`` (default): as it is where the provider takes its type; else a PDF as page images
  (its text where the provider takes no images) and any other document as text.
- ``"pages"``: every PDF as page images, even where the provider takes PDFs; others as "convert".
- ``"text"``: every convertible document as text, even where the provider takes the file.
- ``"raise"``: nothing is converted; a type the provider refuses is a `DoesNotFitError` problem.
"""

DOCUMENT_STRATEGIES: tuple[str, ...] = ("convert", "pages", "text", "raise")


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
    ``max_video_seconds``: a transcoded video is cut there.

    Time (``docs/isolation.md``): ``time_budget`` is each block's budget, wall-clock and CPU
    seconds for everything the block costs (header probes, every conversion in a worker, the
    wait for a free worker): ``"auto"`` (default) sizes it by kind (seconds for an SVG, per page
    for a PDF, by duration for audio and video, at most `DEFAULT_TIME_BUDGET`), a number gives
    every block that many seconds, ``None`` none. ``total_time_budget``: wall seconds for the
    whole call (default `DEFAULT_TOTAL_TIME_BUDGET`; ``None``: none). Past a block's budget the
    block is a problem (an image: the error at once); past the call's, `prepare` raises
    `ConversionTimeoutError` (``limit="total_time_budget"``) at once.

    Documents (``docs/documents.md``; extras ``[pdf]`` and ``[office]``): ``documents`` is the
    strategy (`DocumentStrategy`: ``"convert"``, ``"pages"``, ``"text"`` or ``"raise"``; with
    ``convert=False`` it acts as ``"raise"``). ``max_pages``: PDF pages sent as images (or read
    as text) per document; ``max_text_chars``: characters of text per document. A document over
    a budget is cut and the cut reported, or refused with ``truncate_documents=False``.

    ``conversion_limits``: the `ConversionLimits` (memory, CPU seconds, stack) of the worker
    processes that render SVG and PDF and read documents (``docs/isolation.md``); ``None``: the
    defaults. A worker is stopped when its block's budget runs out.
    ``unsupported``: `UnsupportedStrategy`; ``"drop"`` removes (and reports) each block the
    provider takes in no form instead of raising. A message left empty stays, empty.
    """

    optimal_size: bool = True
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
    time_budget: TimeBudget = AUTO
    total_time_budget: float | None = DEFAULT_TOTAL_TIME_BUDGET
    documents: DocumentStrategy = "convert"
    max_pages: int = DEFAULT_MAX_PAGES
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    truncate_documents: bool = True
    conversion_limits: ConversionLimits | None = None
    unsupported: UnsupportedStrategy = "raise"

    def __post_init__(self) -> None:
        if self.unsupported not in ("raise", "drop", "note"):
            raise InvalidOptionError(f"unsupported={self.unsupported!r}: 'raise', 'drop' or 'note'")
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
        check_time_budget("PrepareOptions", "time_budget", self.time_budget)
        check_time_budget("PrepareOptions", "total_time_budget", self.total_time_budget, auto=False)
        for name in ("frame_interval", "max_audio_seconds", "max_video_seconds"):
            value = getattr(self, name)
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if value is not None and not (number and value > 0):
                raise InvalidOptionError(f"{name}={value!r}: a positive number of seconds")
        # Checked here, so `prepare`'s keywords are too: "5", NaN or True never reach a limit.
        for name in ("optimal_size", "strip_metadata", "convert", "read_urls", "allow_split"):
            check_bool("PrepareOptions", name, getattr(self, name))
        check_size("PrepareOptions", "max_image_pixels", self.max_image_pixels, optional=True)
        limits = self.conversion_limits
        if limits is not None and not isinstance(limits, ConversionLimits):
            raise InvalidOptionError(
                "PrepareOptions.conversion_limits must be a ConversionLimits or None, "
                f"not a {type(limits).__name__}"
            )
        if self.policy is not None and not isinstance(self.policy, FetchPolicy):
            raise InvalidOptionError(
                "PrepareOptions.policy must be a FetchPolicy or None, "
                f"not a {type(self.policy).__name__}"
            )


class BlockKeywords(TypedDict, total=False):
    """The keyword options of `prepare_block` besides ``model`` and ``image_count``, as a type
    checker sees them: written once (each is described on `PrepareOptions`)."""

    optimal_size: bool
    strip_metadata: bool
    convert: bool
    max_image_pixels: int | None
    policy: FetchPolicy | None
    audio: AudioStrategy
    video: VideoStrategy
    max_frames: int
    frame_interval: float | None
    max_audio_seconds: float | None
    max_video_seconds: float | None
    allow_split: bool
    time_budget: TimeBudget
    total_time_budget: float | None
    documents: DocumentStrategy
    max_pages: int
    max_text_chars: int
    truncate_documents: bool
    conversion_limits: ConversionLimits | None


class PrepareKeywords(BlockKeywords, total=False):
    """The keyword options of `prepare` (and `prepare_with_report`, `aprepare`) besides
    ``model``: `BlockKeywords`, ``read_urls`` and ``unsupported`` (on `PrepareOptions`), the
    stand-ins (``transcriber``, ``describer``, ``stand_in_cache``) and ``accept``."""

    read_urls: bool
    unsupported: UnsupportedStrategy
    transcriber: Transcriber | None
    describer: Describer | None
    stand_in_cache: StandInCache | None
    accept: Iterable[str] | None


BLOCK_OPTIONS: frozenset[str] = frozenset(BlockKeywords.__annotations__)
"""The keywords `prepare_block` takes for its `PrepareOptions`."""
PREPARE_OPTIONS: frozenset[str] = BLOCK_OPTIONS | {"read_urls", "unsupported"}
"""The keywords `prepare` takes for its `PrepareOptions` (the others it reads itself)."""


def options_from(
    keywords: Mapping[str, Any], function: str, allowed: frozenset[str], **fixed: Any
) -> PrepareOptions:
    """The `PrepareOptions` of one call's keywords; a keyword ``function`` does not take is the
    `TypeError` Python raises for any unknown keyword argument."""
    unknown = sorted(keywords.keys() - allowed)
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    return PrepareOptions(**keywords, **fixed)
