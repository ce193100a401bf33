"""PostScript and EPS: refused by default; rendered by Ghostscript in a worker when allowed.

PostScript is a programming language: an 80-byte EPS holding ``{ } loop`` runs for ever, and
Pillow's EPS plugin starts Ghostscript as a child of whatever process opened the image. So
mediablocks never lets Pillow open EPS (`mediablocks.probing.plugins`), and a PostScript or EPS
image is `UnsupportedBlockError` unless the caller opts in with
``ConversionLimits(allow_postscript=True)``. Then `render_postscript` runs Ghostscript:

- inside a worker process (`run_isolated`), under the worker's `ConversionLimits` (address
  space and CPU seconds, which a child inherits) and the wall-time budget;
- with ``-dSAFER`` (no file access beyond its input, no ``%pipe%``), one page, a fixed page
  size in pixels (the output is bounded before it is drawn), its own copy of the limits, and a
  death signal tied to the worker: when the worker is killed at the end of the budget,
  Ghostscript dies with it instead of spinning on as an orphan.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable

from ..errors import ConversionTimeoutError, DecodeError, UnsupportedBlockError

__all__ = ["is_postscript", "postscript_size", "render_postscript"]

_DOS_EPS = b"\xc5\xd0\xd3\xc6"
_BOUNDING_BOX = re.compile(
    rb"^%%(?:HiRes)?BoundingBox:[ \t]*(-?[\d.]+)[ \t]+(-?[\d.]+)[ \t]+(-?[\d.]+)[ \t]+(-?[\d.]+)",
    re.MULTILINE,
)
_LETTER = (612.0, 792.0)  # Ghostscript's default page, in points
_MIN_SIDE = 512
_DEFAULT_SIDE = 2048
_PR_SET_PDEATHSIG = 1


def is_postscript(data: bytes) -> bool:
    """PostScript or EPS, as Ghostscript (and Pillow's EPS plugin) would take it."""
    return data[:4] in (b"%!PS", _DOS_EPS)


def postscript_size(data: bytes) -> tuple[float, float]:
    """The page or bounding box in points (1 point is 1 pixel at 72 dpi): the last
    ``%%HiResBoundingBox`` or ``%%BoundingBox`` comment of the first 64 KiB, else Letter."""
    head = data[:65536]
    if head.startswith(_DOS_EPS) and len(head) >= 12:
        start = int.from_bytes(head[4:8], "little")
        head = data[start : start + 65536]
    size = _LETTER
    for found in _BOUNDING_BOX.finditer(head):
        try:
            left, bottom, right, top = (float(value) for value in found.groups())
        except ValueError:
            continue
        if right > left and top > bottom:
            size = (right - left, top - bottom)
    return size


def render_postscript(
    data: bytes, max_side: int | None, max_pixels: int | None, what: str
) -> bytes:
    """PostScript or EPS as a PNG of its first page, rendered by Ghostscript in a worker.

    Raises `UnsupportedBlockError` unless the `use_conversion_limits` scope's limits (those
    `prepare` is given) allow PostScript, or when Ghostscript is not installed.
    """
    from .limits import current_limits

    limits, budget = current_limits()
    if not limits.allow_postscript:
        raise UnsupportedBlockError(
            f"{what}: PostScript and EPS are refused: rendering them runs a program (Ghostscript "
            "interprets a programming language). To render them in a worker process under the "
            "conversion limits, pass conversion_limits=ConversionLimits(allow_postscript=True)"
        )
    if shutil.which("gs") is None:
        raise UnsupportedBlockError(
            f"{what}: PostScript is rendered only by Ghostscript, and the gs program is not "
            "installed (apt-get install ghostscript, brew install ghostscript)"
        )
    width, height = _output_size(postscript_size(data), max_side, max_pixels)
    from .isolation import run_isolated

    return run_isolated(
        what,
        ghostscript_png,
        data,
        width,
        height,
        what,
        keywords={
            "seconds": budget,
            "memory_bytes": limits.memory_bytes,
            "cpu_seconds": limits.cpu_seconds,
            "owner": os.getpid(),
        },
        converter="PostScript interpreter (Ghostscript)",
    )


def _output_size(
    size: tuple[float, float], max_side: int | None, max_pixels: int | None
) -> tuple[int, int]:
    """The natural size (at least 512 px on the long side), within the side and pixel limits."""
    width, height = size
    side = max_side or _DEFAULT_SIDE
    long_side = max(width, height)
    scale = min(side, max(long_side, _MIN_SIDE)) / long_side
    if max_pixels is not None:
        scale = min(scale, (max_pixels / (width * height)) ** 0.5)
    return max(1, round(width * scale)), max(1, round(height * scale))


def ghostscript_png(
    data: bytes,
    width: int,
    height: int,
    what: str,
    *,
    seconds: float | None,
    memory_bytes: int | None,
    cpu_seconds: float | None,
    owner: int,
) -> bytes:
    """Ghostscript's PNG of the first page at ``width`` x ``height`` pixels (a worker's job).

    ``owner`` (the caller's process id) names the temporary folder, so a test can see that no
    Ghostscript of this caller outlives it.
    """
    gs = shutil.which("gs")
    if gs is None:
        raise UnsupportedBlockError(f"{what}: the gs program is not installed")
    with tempfile.TemporaryDirectory(prefix=f"mediablocks-ps-{owner}-") as folder:
        source = os.path.join(folder, "input.ps")
        with open(source, "wb") as handle:
            handle.write(data)
        command = [
            gs,
            "-q",
            "-dSAFER",
            "-dBATCH",
            "-dNOPAUSE",
            "-dNOPROMPT",
            "-sDEVICE=png16m",
            "-r72",
            f"-g{width}x{height}",
            "-dFIXEDMEDIA",
            "-dEPSFitPage",
            "-dPSFitPage",
            "-dFirstPage=1",
            "-dLastPage=1",
            "-dTextAlphaBits=4",
            "-dGraphicsAlphaBits=4",
            "-sstdout=%stderr",
            "-sOutputFile=%stdout",
            "-f",
            source,
        ]
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=folder,
            close_fds=True,
            preexec_fn=_child_limits(memory_bytes, cpu_seconds),
        )
        try:
            png, _ = process.communicate(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise ConversionTimeoutError(
                f"{what}: Ghostscript ran past the wall-time budget time_budget={seconds:g} s "
                "and was stopped",
                limit="time_budget",
                value=seconds,
            ) from None
        finally:
            with contextlib.suppress(OSError):
                process.kill()
            process.wait()
    if process.returncode == -signal.SIGXCPU:
        raise ConversionTimeoutError(
            f"{what}: Ghostscript used more than the CPU limit cpu_seconds={cpu_seconds} s",
            limit="cpu_seconds",
            value=cpu_seconds,
        )
    if not png.startswith(b"\x89PNG"):
        raise DecodeError(
            f"{what}: Ghostscript could not render this PostScript (exit status "
            f"{process.returncode})"
        )
    return png


def _child_limits(memory_bytes: int | None, cpu_seconds: float | None) -> Callable[[], None] | None:
    """What Ghostscript's process runs before it starts (POSIX): die with its parent (Linux's
    ``PR_SET_PDEATHSIG``), no core file, and the conversion limits of its own. Everything it
    calls is looked up here, before the fork: the child only makes system calls."""
    if os.name != "posix":
        return None
    import resource

    prctl: Callable[[int, int], int] | None = None
    with contextlib.suppress(Exception):
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    limits = [(resource.RLIMIT_CORE, 0)]
    if memory_bytes is not None:
        limits.append((resource.RLIMIT_AS, memory_bytes))
    if cpu_seconds is not None:
        limits.append((resource.RLIMIT_CPU, int(cpu_seconds) + 1))
    lowered = [(kind, _lowered(kind, value)) for kind, value in limits]

    def apply() -> None:
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        for kind, value in lowered:
            if value is not None:
                resource.setrlimit(kind, value)

    return apply


def _lowered(kind: int, value: int) -> tuple[int, int] | None:
    """The (soft, hard) limit that lowers ``kind`` to ``value``, or None when it is lower."""
    import resource

    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    if soft == resource.RLIM_INFINITY or value < soft:
        return value, hard
    return None
