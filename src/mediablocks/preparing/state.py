"""One preparation's state (the provider's limits, the options, the problems and notes so far)
and the checks every kind of media shares: accepted types, byte limits, durations from headers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import DecodeError, DoesNotFitError, FitProblem, MediaBlocksError
from ..fetching.policy import FetchPolicy
from ..limits import ByteMeasure, ProviderLimits, measured_size
from ..media import MediaBlock
from ..sources import FileIdSource, URLSource
from .options import PrepareOptions
from .slots import _kind, _Slot

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ..convert.budget import Budget
    from .document_blocks import ConvertedDocument
    from .standins import StandIns


class _Preparation:
    """What one `prepare` call knows as it goes; the steps (`walk`, `images`, `av`, `documents`,
    `totals`) read its limits and options and record problems and notes in it."""

    def __init__(self, limits: ProviderLimits, options: PrepareOptions) -> None:
        self.limits = limits
        self.options = options
        self.problems: list[str] = []  # `FitProblem`s (a plain string gets the generic code)
        self.notes: list[str] = []
        self.text_bytes = 0  # JSON bytes of the non-media content, counted by `walk`
        self.image_count = 0  # images in the request before any video became frames
        self.frames_taken = 0
        self.planned: dict[int, tuple[int, str]] = {}  # id(slot) -> (raw byte cap, reason)
        self.no_form: dict[int, str] = {}  # id(slot) -> why the provider takes it in no form
        self.broken: set[int] = set()  # id(slot) of blocks whose bytes do not decode
        self.stand_ins: StandIns | None = None  # the caller's transcriber / describer
        self.call_budget: Budget | None = None  # the call's total (`timing.call_budget`)
        self.block_budgets: dict[int, Budget] = {}  # id(slot) -> its budget, once started
        self.documents: dict[int, Future[ConvertedDocument | None]] = {}  # converting ahead

    def problem(self, slot: _Slot | None, code: str, text: str) -> None:
        """Record a problem with its stable ``code`` (`FitProblem`): about ``slot``'s block, or
        the whole request when ``slot`` is None."""
        where = slot.where if slot is not None else ""
        self.problems.append(
            FitProblem(
                f"{where}: {text}" if where else text,
                code=code,
                block=slot.block if slot is not None else None,
                where=where,
            )
        )

    def problem_from(self, slot: _Slot, exc: MediaBlocksError, context: str = "") -> None:
        """Record ``exc`` as ``slot``'s problem, with the code the error carries."""
        self.problem(slot, problem_code(exc), f"{context}{_reason(exc, slot.block)}")

    def raise_problems(self) -> None:
        if self.problems:
            count = len(self.problems)
            listing = "\n".join(f"  - {problem}" for problem in self.problems)
            raise DoesNotFitError(
                f"{count} problem{'s' if count > 1 else ''} fitting media to "
                f"{self.limits.provider}:\n{listing}",
                self.problems,
            )

    def takes_in_no_form(self, slot: _Slot) -> str | None:
        """Why the provider can take ``slot``'s block in no form at all, not even converted
        (``None``: some form exists, or might once read). What ``unsupported="drop"`` drops."""
        if id(slot) in self.no_form:
            return self.no_form[id(slot)]
        kind = _kind(slot.block)
        limits = self.limits
        name = limits.provider
        if kind == "image" and not limits.image_types:
            return f"{name} takes no image input"
        if kind == "audio" and not limits.audio_types:
            return f"{name} takes no audio input"
        if kind == "video" and not limits.video_types and not limits.video_frames:
            return f"{name} takes no video input, not even as frames"
        if kind == "video" and not limits.video_types and "image/jpeg" not in limits.image_types:
            return f"{name} takes no video input, and no JPEG images for its frames"
        mime = slot.block.mime_type
        if kind == "document" and slot.replacement is None and mime not in limits.document_types:
            return f"{name} takes no {mime} documents, and none could be made into its input"
        return None

    def problems_for(self, slot: _Slot) -> bool:
        """True when a problem names ``slot`` already."""
        return any(problem.startswith(slot.where) for problem in self.problems)

    def measure_of(self, block: MediaBlock) -> ByteMeasure:
        kind = _kind(block)
        if kind == "image":
            return self.limits.image_bytes_measure
        if kind == "audio":
            return self.limits.audio_bytes_measure
        if kind == "video":
            return self.limits.video_bytes_measure
        return self.limits.document_bytes_measure

    def readable(self, block: MediaBlock) -> bool:
        if isinstance(block.source, FileIdSource):
            return False
        return not isinstance(block.source, URLSource) or self.options.read_urls

    def refuse_type(self, slot: _Slot, kind: str) -> bool:
        """Record a problem when the provider takes no such kind or type; True if it did."""
        accepted = self.limits.types_for(kind)
        mime = slot.result.mime_type
        if mime in accepted:
            return False
        name = self.limits.provider
        if self.limits.model and self.limits.types_for(kind) != _base_types(name, kind):
            name += f" ({self.limits.model})"  # the model's rule, not the provider's
        if not accepted:
            self.problem(slot, "unsupported_kind", f"{name} takes no {kind} input{_needed(kind)}")
        else:
            self.problem(
                slot,
                "unsupported_type",
                f"{name} takes {kind} as {', '.join(sorted(accepted))}, not {mime}",
            )
        return True

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

    def fit_timed(self, slot: _Slot, kind: str, seconds: float | None = None) -> None:
        """Type and byte checks of an audio or video result, and its duration: ``seconds``
        when the converter that made it measured them, else probed from its headers."""
        if self.refuse_type(slot, kind):
            return
        limit = self.limits.max_audio_bytes if kind == "audio" else self.limits.max_video_bytes
        self.check_bytes(slot, limit, self.measure_of(slot.block), kind)
        if seconds is not None:
            slot.seconds = seconds
            return
        info = _probe(slot.result, self.options.policy)
        slot.seconds = None if info is None else info.duration

    def check_bytes(self, slot: _Slot, limit: int | None, measure: ByteMeasure, kind: str) -> None:
        if limit is None or slot.size is None:
            return
        counted = measured_size(slot.size, measure)
        if counted > limit:
            self.problem(
                slot,
                "too_large",
                f"{counted:,} bytes ({measure}) is over {self.limits.provider}'s "
                f"{kind} limit of {limit:,} bytes",
            )


def _base_types(provider: str, kind: str) -> frozenset[str]:
    """The types ``provider`` takes for ``kind`` whatever the model."""
    from ..providers.registry import limits_for

    return limits_for(provider).types_for(kind)


def _needed(kind: str) -> str:
    """What sending a kind the provider takes in no form would need."""
    if kind == "audio":
        return (
            " in any form (transcribe it first, or use a provider taking audio: an OpenAI "
            "audio model, Gemini, Bedrock, Mistral)"
        )
    return ""


def problem_code(exc: MediaBlocksError) -> str:
    """The `FitProblem` code for an error met while fitting a block: its own code, except that
    undecodable bytes are ``broken_media`` and a converter's `DoesNotFitError` keeps its
    problem's code."""
    if isinstance(exc, DoesNotFitError):
        return exc.problems[0].code
    if type(exc) is DecodeError:
        return "broken_media"
    return exc.code


def _reason(exc: MediaBlocksError, block: MediaBlock) -> str:
    text = str(exc)
    prefix = block.describe() + ": "
    return text[len(prefix) :] if text.startswith(prefix) else text


def _probe(block: MediaBlock, policy: FetchPolicy | None) -> Any:
    """Media facts from the headers (None: facts unknown, e.g. a provider file id).

    A broken header (`DecodeError`: a truncated MP4, a PDF without a page tree) propagates: the
    provider would refuse the file too, so it is a problem, not a pass.
    """
    from ..probing import probe

    try:
        return probe(block, policy)
    except DecodeError:
        raise
    except MediaBlocksError:
        return None


def _raw_bytes(limit: int | None, measure: ByteMeasure) -> int | None:
    """The largest raw size whose measured size is within ``limit``."""
    if limit is None:
        return None
    return (limit // 4) * 3 if measure == "base64" else limit


def decode_check(name: str, payload: bytes, what: str) -> None:
    """One `mediablocks.convert.verify` check in a conversion worker (PyAV and PDFium can crash
    on crafted input), under the limits and time budget `fit` put in scope. Audio and video
    checks read only the start of the file, so a long one ships only its start and end
    (`mediablocks.convert.verify.run_check`)."""
    from ..convert.verify import run_check

    run_check(name, payload, what)
