"""Stand-ins: text for media a provider cannot take in any form (``docs/stand-ins.md``).

`prepare(..., transcriber=..., describer=...)` calls a transcriber (audio, and the sound of a
video) or a describer (anything) only after native input and local conversion cannot serve.
This package holds what they produce (`Transcript`, `Description`), the cache that makes a
second `prepare` of the same media free (`MemoryStandInCache`, `DirectoryStandInCache`), and
ready-made transcribers: `OpenAITranscriber` (OpenAI, Groq and other servers speaking OpenAI's
transcription endpoint), `GeminiTranscriber` (google-genai) and `LocalTranscriber`
(faster-whisper, offline). Their SDKs load only when one is called.
"""

from __future__ import annotations

from .cache import DirectoryStandInCache, MemoryStandInCache, StandInCache
from .gemini import GeminiTranscriber
from .local import LocalTranscriber
from .openai import OpenAITranscriber
from .types import Describer, Description, Transcriber, Transcript, TranscriptSegment

__all__ = [
    "Describer",
    "Description",
    "DirectoryStandInCache",
    "GeminiTranscriber",
    "LocalTranscriber",
    "MemoryStandInCache",
    "OpenAITranscriber",
    "StandInCache",
    "Transcriber",
    "Transcript",
    "TranscriptSegment",
]
