"""Conversion of media a provider cannot take into media it can (loaded on use).

`mediablocks.preparing` calls these when a strategy asks for conversion:

* `mediablocks.convert.audio` — any audio PyAV decodes is stream-copied into a container the
  provider takes where it takes the codec, else becomes FLAC or WAV (16 kHz mono speech when
  that keeps it under a byte limit), MP3 at speech settings only where nothing else fits, and
  ordered chunks when still too long.
* `mediablocks.convert.video` — video becomes H.264/AAC MP4 for providers that take video, or a
  handful of timestamped JPEG frames for providers that take images only.

The heavy libraries are optional extras imported inside the functions that use them:
``pip install 'mediablocks[av]'`` installs PyAV, whose wheels carry the FFmpeg libraries (no
``ffmpeg`` on ``PATH`` is needed). Importing this package imports none of them.
"""

from __future__ import annotations

AV_EXTRA_HINT = "pip install 'mediablocks[av]'"
"""The command that installs the audio/video converter (PyAV)."""

__all__ = ["AV_EXTRA_HINT"]
