"""The conversion flags ``inspect`` and ``prepare`` share, and the names of what a file becomes.

The flags are `prepare`'s own keywords (``docs/conversion.md``, ``docs/documents.md``): a flag
left out is not passed, so the library's default applies and the command line can never drift
from it. A file that becomes several blocks is described by what each block is to the file it
came from: a video's images are ``frame``\\ s, a document's are ``page``\\ s, an audio file's
pieces are ``part``\\ s, a video's sound is its ``audio``, and the rest ``text``.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the models load when a part is labelled, not when the parsers are built
    from ..blocks import Block
    from ..media import MediaBlock

__all__ = ["add_conversion_flags", "conversion_options", "describe_parts", "part_label", "plural"]

_PLURALS = {
    "frame": "frames",
    "page": "pages",
    "part": "audio parts",
    "audio": "audio blocks",
    "text": "text blocks",
    "image": "images",
    "video": "videos",
    "document": "documents",
}


def _positive_int(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of at least 1: {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return value


def add_conversion_flags(parser: argparse.ArgumentParser) -> None:
    """``--audio``, ``--video``, ``--documents`` and the budgets, as `prepare` takes them."""
    group = parser.add_argument_group(
        "conversion", "how audio, video and documents a provider refuses are made to fit"
    )
    group.add_argument(
        "--audio",
        choices=("convert", "raise"),
        default="convert",
        help="convert: re-encode, resample or split audio the provider refuses; "
        "raise: refuse it (default convert)",
    )
    group.add_argument(
        "--video",
        choices=("convert", "frames", "raise"),
        default="convert",
        help="convert: transcode where the provider takes video, else timestamped frames; "
        "frames: always frames; raise: refuse what does not fit as it is (default convert)",
    )
    group.add_argument(
        "--documents",
        choices=("convert", "pages", "text", "raise"),
        default="convert",
        help="convert: as they are where taken, else page images for PDFs and text for the "
        "rest; pages: PDF page images; text: extracted text; raise: refuse (default convert)",
    )
    group.add_argument(
        "--max-frames", type=_positive_int, metavar="N", help="frames taken from one video (20)"
    )
    group.add_argument(
        "--frame-interval",
        type=_seconds,
        metavar="S",
        help="seconds between frames (default: --max-frames spread evenly)",
    )
    group.add_argument(
        "--max-pages", type=_positive_int, metavar="N", help="PDF pages per document (20)"
    )
    group.add_argument(
        "--max-text-chars",
        type=_positive_int,
        metavar="N",
        help="characters of text per document (100000)",
    )
    group.add_argument(
        "--max-audio-seconds",
        type=_seconds,
        metavar="S",
        help="longest audio block; longer audio is split into parts (default: the provider's)",
    )
    group.add_argument(
        "--max-video-seconds", type=_seconds, metavar="S", help="cut a transcoded video here"
    )
    group.add_argument(
        "--no-split",
        action="store_true",
        help="refuse audio longer than its limit instead of splitting it",
    )
    group.add_argument(
        "--no-truncate",
        action="store_true",
        help="refuse a document over --max-pages or --max-text-chars instead of cutting it",
    )
    group.add_argument(
        "--time-budget",
        type=_seconds,
        metavar="S",
        help="seconds one file may take in all (default: by kind and duration, at most 120)",
    )


def conversion_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords for `prepare_with_report`: the strategies, and each budget that was given."""
    options: dict[str, Any] = {
        "audio": args.audio,
        "video": args.video,
        "documents": args.documents,
    }
    budgets = (
        "max_frames",
        "frame_interval",
        "max_pages",
        "max_text_chars",
        "max_audio_seconds",
        "max_video_seconds",
        "time_budget",
    )
    for name in budgets:
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if args.no_split:
        options["allow_split"] = False
    if args.no_truncate:
        options["truncate_documents"] = False
    return options


def part_label(source: MediaBlock, part: Block) -> str:
    """What ``part`` is to the file ``source`` became: frame, page, part, audio, text..."""
    from ..blocks import TextBlock
    from ..media import AudioBlock, FileBlock, ImageBlock, VideoBlock

    if isinstance(part, TextBlock):
        return "text"
    if isinstance(part, ImageBlock):
        if isinstance(source, VideoBlock):
            return "frame"
        return "page" if isinstance(source, FileBlock) else "image"
    if isinstance(part, AudioBlock):
        return "audio" if isinstance(source, VideoBlock) else "part"
    if isinstance(part, VideoBlock):
        return "video"
    return "document"


def describe_parts(source: MediaBlock, parts: Iterable[Block]) -> tuple[int, dict[str, int]]:
    """``(block count, {label: count})``, labels in the order they first appear."""
    counts = Counter(part_label(source, part) for part in parts)
    return sum(counts.values()), dict(counts)


def plural(label: str, count: int) -> str:
    """``20 frames``, ``1 page``, ``3 text blocks``."""
    if count == 1:
        return f"1 {_PLURALS.get(label, label).removesuffix('s')}"
    return f"{count} {_PLURALS.get(label, label)}"
