"""How bytes cross between the caller and its conversion workers (`mediablocks.convert._pool`,
`mediablocks.convert._worker`), at the cost of the pipe alone.

A file a job converts can be megabytes, and on a busy machine fresh memory costs a page fault
per 4 KiB touched, more than the pipe does. So a request's pickle is kept as the chunks the
pickler wrote (`pickled`), the file among them as it is, and written chunk after chunk
(`write_framed`); each side reads a message into a buffer it keeps from job to job (up to
`REUSED_BYTES`); and the pipes are widened (`widen_pipes`) so that a few hundred KiB cross in
one write and one wake-up of the reader.

Standard library only: the worker imports it before anything else.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
from collections.abc import Sequence

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "PIPE_BYTES",
    "REUSED_BYTES",
    "Chunks",
    "pickled",
    "widen_pipes",
    "write_all",
    "write_framed",
]

REUSED_BYTES = 8 << 20
"""Requests up to this size are read into one buffer kept from job to job: fresh memory costs
a page fault per 4 KiB touched, which for a file of a few MB costs more than reading it."""


PIPE_BYTES = 1 << 20
"""The pipes to and from a worker hold this much (Linux; 64 KiB by default): a request or reply
of a few hundred KiB then crosses in one write and one wake-up of the reader, not one per
64 KiB. The kernel takes the pages only while bytes sit in the pipe."""

_ONE_WRITE = 1 << 16
"""Pieces of a message up to this size are joined into one write with its length (one wake-up
for the reader); a larger one is written as it is, not copied only to be joined."""


class Chunks:
    """A file `pickle.Pickler` writes into: the pickle kept as the list of what it wrote. The
    pickler hands a large ``bytes`` object (a converted file) to ``write`` as it is, so a
    message holds it without a copy: copying megabytes into fresh memory costs a page fault
    per 4 KiB, more than the pipe does."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data: bytes | memoryview) -> int:
        self.parts.append(data if isinstance(data, bytes) else bytes(data))
        return len(data)


def pickled(value: object) -> list[bytes]:
    """``value``'s pickle (the highest protocol), as the chunks to write one after the other."""
    chunks = Chunks()
    pickle.Pickler(chunks, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return chunks.parts


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Every byte of ``data`` to the descriptor, 1 MiB at a time."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[: 1 << 20]) :]


def write_framed(fd: int, message: bytes | Sequence[bytes]) -> None:
    """``message`` (or its chunks, in order) after its 8-byte length; small pieces are joined
    into one write, a large one is written as it is (not copied only to prefix the length)."""
    parts = [message] if isinstance(message, bytes) else list(message)
    pending = [sum(len(part) for part in parts).to_bytes(8, "big")]
    for part in parts:
        if len(part) > _ONE_WRITE:
            write_all(fd, b"".join(pending))
            write_all(fd, part)
            pending = []
        else:
            pending.append(part)
    if pending:
        write_all(fd, b"".join(pending))


def widen_pipes(process: subprocess.Popen[bytes]) -> None:
    """Grow both pipes of a new worker to `PIPE_BYTES` where the system allows it."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setsize is None:
        return
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):  # over the system's limit: the default stays
                fcntl.fcntl(pipe.fileno(), setsize, PIPE_BYTES)
