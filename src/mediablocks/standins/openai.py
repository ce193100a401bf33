"""`OpenAITranscriber`: a transcriber over the OpenAI SDK's transcription endpoint.

``client.audio.transcriptions.create`` is spoken by OpenAI, Groq and other servers (LocalAI,
vLLM, speaches...): point an ``openai.OpenAI`` client at one with ``base_url``. Audio goes as it
is when the endpoint takes its format and size; otherwise it is cut into 16 kHz mono WAV
pieces under the size limit (25 MB by default, OpenAI's and Groq's free tier) that overlap by
``overlap`` seconds, and the pieces' transcripts are put back on one time line.

Whisper models answer with timed segments (``verbose_json``); ``gpt-4o-*-transcribe`` models
answer with text only (``json``), so their transcript is one block per piece.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import Any

from ..errors import MediaBlocksError, StandInError
from ..fetching.policy import FetchPolicy
from ..media import AudioBlock
from ..usage import Usage
from ._calls import LazyClient
from ._pieces import Piece, merge, pieces_for
from .types import Transcript, TranscriptSegment

__all__ = ["OPENAI_TRANSCRIPTION_TYPES", "OpenAITranscriber"]

OPENAI_TRANSCRIPTION_TYPES = frozenset(
    {
        "audio/flac",
        "audio/mpeg",
        "audio/mp4",
        "audio/ogg",
        "audio/opus",
        "audio/wav",
        "audio/webm",
    }
)
"""What OpenAI's and Groq's transcription endpoints read: flac, mp3, mp4, mpeg, mpga, m4a,
ogg, wav, webm (from https://platform.openai.com/docs/guides/speech-to-text and
https://console.groq.com/docs/speech-to-text)."""

MAX_TRANSCRIPTION_BYTES = 25 * 1000 * 1000
"""One file's limit at OpenAI (25 MB) and on Groq's free tier (its developer tier takes 100 MB:
pass ``max_bytes``)."""


class OpenAITranscriber:
    """Transcribes audio with ``client.audio.transcriptions.create``.

    ``client``: an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` (``None``: ``openai.OpenAI()``
    from the environment, made on first use); for Groq,
    ``openai.OpenAI(base_url="https://api.groq.com/openai/v1", api_key=...)`` with
    ``model="whisper-large-v3-turbo"``. ``model``, ``language`` (ISO-639-1) and ``prompt`` go
    to the endpoint. ``timestamps``: ask for timed segments (``None``: for Whisper models, whose
    ``verbose_json`` has them). ``max_bytes`` and ``accepted_types`` are the endpoint's file
    limit and formats; ``overlap`` the seconds pieces share when audio is split.
    """

    def __init__(
        self,
        client: Any = None,
        *,
        model: str = "whisper-1",
        language: str | None = None,
        prompt: str | None = None,
        timestamps: bool | None = None,
        max_bytes: int | None = MAX_TRANSCRIPTION_BYTES,
        accepted_types: frozenset[str] = OPENAI_TRANSCRIPTION_TYPES,
        overlap: float = 2.0,
        policy: FetchPolicy | None = None,
    ) -> None:
        self._client = LazyClient(client, _client_from_environment)
        self.model = model
        self.language = language
        self.prompt = prompt
        self.timestamps = "whisper" in model.lower() if timestamps is None else timestamps
        self.max_bytes = max_bytes
        self.accepted_types = frozenset(accepted_types)
        self.overlap = overlap
        self.policy = policy

    @property
    def cache_key(self) -> str:
        """Names the endpoint, model and options: the stand-in cache keeps their answers apart."""
        base = str(getattr(self._client.given, "base_url", "") or "openai")
        return (
            f"openai-transcription|{base}|{self.model}|{self.language}|{self.prompt}|"
            f"{self.timestamps}"
        )

    def client(self) -> Any:
        """The SDK client (made from the environment on first use when none was given)."""
        return self._client.get()

    def __call__(self, block: AudioBlock) -> Transcript | Awaitable[Transcript]:
        """The transcript of ``block`` (an awaitable of it with an async client)."""
        client = self.client()
        pieces = pieces_for(
            block,
            accepted=self.accepted_types,
            max_bytes=self.max_bytes,
            overlap=self.overlap,
            policy=self.policy,
        )
        create = client.audio.transcriptions.create
        answers: list[tuple[Piece, Transcript]] = []
        for index, piece in enumerate(pieces):
            try:
                response = create(**self._request(piece))
            except Exception as exc:
                raise self._failed(block, exc) from exc
            if inspect.isawaitable(response):  # an async client: the rest is awaited
                return self._finish(create, response, pieces[index:], answers, block)
            answers.append((piece, self._transcript(response)))
        return merge(answers, self.model)

    async def _finish(
        self,
        create: Any,
        first: Awaitable[Any],
        pieces: list[Piece],
        answers: list[tuple[Piece, Transcript]],
        block: AudioBlock,
    ) -> Transcript:
        for index, piece in enumerate(pieces):
            try:
                response = await (first if index == 0 else create(**self._request(piece)))
            except Exception as exc:
                raise self._failed(block, exc) from exc
            answers.append((piece, self._transcript(response)))
        return merge(answers, self.model)

    def _request(self, piece: Piece) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model,
            "file": (piece.filename, piece.data, piece.mime_type),
        }
        if self.timestamps:
            request["response_format"] = "verbose_json"
            request["timestamp_granularities"] = ["segment"]
        else:
            request["response_format"] = "json"
        if self.language:
            request["language"] = self.language
        if self.prompt:
            request["prompt"] = self.prompt
        return request

    def _failed(self, block: AudioBlock, exc: Exception) -> MediaBlocksError:
        if isinstance(exc, MediaBlocksError):
            return exc
        return StandInError(
            f"{block.describe()}: transcription with {self.model} failed: "
            f"{type(exc).__name__}: {exc}"
        )

    def _transcript(self, response: Any) -> Transcript:
        body = _plain(response)
        if isinstance(body, str):
            return Transcript(text=body, model=self.model)
        if not isinstance(body, dict):
            raise StandInError(f"{self.model}: a transcription answer of {type(body).__name__}")
        segments = []
        for item in body.get("segments") or ():
            item = _plain(item)
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                start, end = float(item.get("start") or 0.0), float(item.get("end") or 0.0)
                segments.append(
                    TranscriptSegment(start=start, end=max(end, start), text=item["text"])
                )
        duration = body.get("duration")
        try:
            return Transcript(
                text=str(body.get("text") or ""),
                segments=tuple(segments),
                duration=float(duration) if isinstance(duration, (int, float)) else None,
                language=body.get("language") if isinstance(body.get("language"), str) else None,
                model=self.model,
                usage=_usage(_plain(body.get("usage"))),
            )
        except ValueError as exc:
            raise StandInError(f"{self.model}: an unusable transcription answer: {exc}") from None


def _plain(value: Any) -> Any:
    """An SDK object as plain data (pydantic models have ``model_dump``)."""
    dump = getattr(value, "model_dump", None)
    return dump() if callable(dump) else value


def _usage(usage: Any) -> Usage | None:
    """OpenAI's transcription usage: ``{"type": "duration", "seconds": N}`` (Whisper) or
    ``{"type": "tokens", "input_tokens": ..., "output_tokens": ...}`` (gpt-4o models)."""
    if not isinstance(usage, dict):
        return None
    raw = {k: v for k, v in usage.items() if isinstance(v, (int, float, str)) and v is not None}
    return Usage(
        input_tokens=_count(usage.get("input_tokens")),
        output_tokens=_count(usage.get("output_tokens")),
        raw=raw,
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _client_from_environment() -> Any:
    try:
        import openai
    except ImportError:
        raise StandInError(
            "OpenAITranscriber needs the openai package: pip install openai"
        ) from None
    return openai.OpenAI()
