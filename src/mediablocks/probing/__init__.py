"""Media facts from headers: image size and frames, audio/video duration, PDF page count.

`probe` and `probe_bytes` parse container headers themselves (no ffprobe, no pixel decoding), so
they are fast and safe on hostile input. What a header does not say is ``None``, never a guess.

Rules (see ``docs/probe.md``):

* Image ``width``/``height`` are the *display* size: a JPEG whose EXIF orientation is 5-8 (or a
  HEIF/AVIF with a 90/270 degree ``irot``, or an MP4 track whose matrix turns 90 degrees) has its
  stored width and height swapped.
* Damaged input never leaks ``IndexError``/``struct.error``: a header that is truncated or
  contradicts itself where the basic facts should be raises `DecodeError` naming the block; a fact
  that is simply absent (an MP3 without a bitrate, a live WebM without a duration) is ``None``.
* A path is read by random access: box, chunk and page headers, and the file's tail for Ogg and
  ``moov``-at-the-end MP4; only PDFs are read whole (their page tree can be anywhere).
"""

from __future__ import annotations

from .dispatch import probe, probe_bytes
from .info import MediaInfo

__all__ = ["MediaInfo", "probe", "probe_bytes"]
