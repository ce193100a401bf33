"""`GeminiTranscriber`: a transcriber over google-genai's ``generate_content``.

Gemini hears audio inline (WAV, MP3, AIFF, AAC, Ogg Vorbis, FLAC) in a request of at most
20 MB; longer audio is cut into overlapping 16 kHz mono WAV pieces under that limit. The model
is asked for JSON segments (``start``, ``end`` in seconds, ``text``) through a response schema,
so the transcript is timed; the answer is read with the library's bounded JSON reader.
"""

from __future__ import annotations

from typing import Any

from .._depth import loads
from ..errors import MediaBlocksError, StandInError
from ..fetching.policy import FetchPolicy
from ..media import AudioBlock
from ..usage import Usage
from ._calls import LazyClient
from ._pieces import Piece, merge, pieces_for
from .types import Transcript, TranscriptSegment

__all__ = ["GEMINI_AUDIO_TYPES", "GeminiTranscriber"]

GEMINI_AUDIO_TYPES = frozenset(
    {"audio/wav", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}
)
"""Audio Gemini reads (https://ai.google.dev/gemini-api/docs/audio)."""

MAX_INLINE_BYTES = 14 * 1000 * 1000
"""Raw audio bytes per request: Gemini takes requests of at most 20 MB, inline files included,
and the SDK sends them base64-encoded (4/3 of the raw size), with the prompt beside them."""

PROMPT = (
    "Transcribe the speech in this audio verbatim. Answer with JSON: a list of segments in "
    "order, each with start and end in seconds from the start of the audio and the text said."
)

_SCHEMA = {
    "type": "ARRAY",
    "items": {
        "type": "OBJECT",
        "properties": {
            "start": {"type": "NUMBER"},
            "end": {"type": "NUMBER"},
            "text": {"type": "STRING"},
        },
        "required": ["start", "end", "text"],
    },
}


class GeminiTranscriber:
    """Transcribes audio with ``client.models.generate_content`` (google-genai).

    ``client``: a ``google.genai.Client`` (``None``: ``genai.Client()`` from the environment,
    made on first use). ``model`` and ``prompt`` go to the request; ``max_bytes`` is the audio
    per request; ``overlap`` the seconds pieces share when audio is split.
    """

    def __init__(
        self,
        client: Any = None,
        *,
        model: str = "gemini-2.5-flash",
        prompt: str = PROMPT,
        max_bytes: int = MAX_INLINE_BYTES,
        overlap: float = 2.0,
        policy: FetchPolicy | None = None,
    ) -> None:
        self._client = LazyClient(client, _client_from_environment)
        self.model = model
        self.prompt = prompt
        self.max_bytes = max_bytes
        self.overlap = overlap
        self.policy = policy

    @property
    def cache_key(self) -> str:
        """Names the model and prompt: the stand-in cache keeps their answers apart."""
        return f"gemini-transcription|{self.model}|{self.prompt}"

    def client(self) -> Any:
        """The SDK client (made from the environment on first use when none was given)."""
        return self._client.get()

    def __call__(self, block: AudioBlock) -> Transcript:
        """The transcript of ``block``."""
        from google.genai import types

        client = self.client()
        pieces = pieces_for(
            block,
            accepted=GEMINI_AUDIO_TYPES,
            max_bytes=self.max_bytes,
            overlap=self.overlap,
            policy=self.policy,
        )
        config = types.GenerateContentConfig(
            response_mime_type="application/json", response_schema=_SCHEMA
        )
        answers = []
        for piece in pieces:
            contents = [types.Part.from_bytes(data=piece.data, mime_type=piece.mime_type)]
            try:
                response = client.models.generate_content(
                    model=self.model, contents=[*contents, self.prompt], config=config
                )
            except Exception as exc:
                if isinstance(exc, MediaBlocksError):
                    raise
                raise StandInError(
                    f"{block.describe()}: transcription with {self.model} failed: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            answers.append((piece, self._transcript(response, piece)))
        return merge(answers, self.model)

    def _transcript(self, response: Any, piece: Piece) -> Transcript:
        text = getattr(response, "text", None)
        if not isinstance(text, str):
            raise StandInError(f"{self.model}: the answer holds no text")
        try:
            items = loads(text, f"{self.model} transcription", "is not JSON")
        except MediaBlocksError:
            return Transcript(text=text, model=self.model, usage=_usage(response))
        segments = []
        for item in items if isinstance(items, list) else ():
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                continue
            start, end = _seconds(item.get("start")), _seconds(item.get("end"))
            limit = piece.duration
            if limit is not None:  # a model's times are guesses: kept inside the piece
                start, end = min(start, limit), min(end, limit)
            segments.append(TranscriptSegment(start=start, end=max(start, end), text=item["text"]))
        return Transcript(segments=tuple(segments), model=self.model, usage=_usage(response))


def _seconds(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value) if value < 1e7 else 1e7
    return 0.0


def _usage(response: Any) -> Usage | None:
    metadata = getattr(response, "usage_metadata", None)
    if metadata is None:
        return None
    prompt = getattr(metadata, "prompt_token_count", None) or 0
    output = getattr(metadata, "candidates_token_count", None) or 0
    return Usage(input_tokens=int(prompt), output_tokens=int(output))


def _client_from_environment() -> Any:
    try:
        from google import genai
    except ImportError:
        raise StandInError(
            "GeminiTranscriber needs google-genai: pip install google-genai"
        ) from None
    return genai.Client()
