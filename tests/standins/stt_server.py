"""A real HTTP server on 127.0.0.1 speaking the transcription endpoints the SDKs call.

- ``POST /v1/audio/transcriptions`` (OpenAI, Groq and compatible servers): a multipart form with
  ``file``, ``model``, ``response_format``...; the answer is ``verbose_json`` (text, segments,
  duration, usage in seconds) or ``json`` (text, token usage), as asked.
- ``POST /v1beta/models/<model>:generateContent`` (Gemini through google-genai): inline audio
  parts; the answer's text is a JSON list of segments.

Each request is recorded in ``server.received`` as a dict (``api``, ``filename``,
``content_type``, ``data``, ``fields``). The words said are ``server.words`` (one segment per
WAV second when the audio is a WAV file, so split audio gets one answer per piece).
"""

from __future__ import annotations

import base64
import io
import json
import threading
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class SpeechServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.fail = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def wav_seconds(data: bytes) -> float | None:
    try:
        with wave.open(io.BytesIO(data), "rb") as reader:
            return reader.getnframes() / reader.getframerate()
    except (wave.Error, EOFError):
        return None


def segments_for(data: bytes, index: int) -> list[dict[str, Any]]:
    """One segment per whole second of a WAV piece (text: the piece number and second)."""
    seconds = wav_seconds(data)
    if seconds is None:
        return [{"start": 0.0, "end": 1.0, "text": f"piece {index} whole"}]
    out = []
    second = 0
    while second < seconds:
        out.append(
            {
                "start": float(second),
                "end": min(second + 1.0, seconds),
                "text": f"p{index}s{second}",
            }
        )
        second += 1
    return out


def _multipart(content_type: str, body: bytes) -> dict[str, tuple[bytes, dict[str, str]]]:
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    fields: dict[str, tuple[bytes, dict[str, str]]] = {}
    for part in message.iter_parts():
        name = str(part.get_param("name", header="content-disposition"))
        payload = part.get_payload(decode=True)
        info = {"filename": part.get_filename() or "", "content_type": part.get_content_type()}
        data = payload if isinstance(payload, bytes) else b""
        if name in fields:  # repeated fields (timestamp_granularities[])
            data = fields[name][0] + b"," + data
        fields[name] = (data, info)
    return fields


class _Handler(BaseHTTPRequestHandler):
    server: SpeechServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.server.fail:
            self._answer(500, {"error": {"message": "overloaded", "type": "server_error"}})
            return
        if self.path.endswith("/audio/transcriptions"):
            self._transcription(body)
        elif ":generateContent" in self.path:
            self._gemini(body)
        else:
            self._answer(404, {"error": {"message": f"no route {self.path}"}})

    def _transcription(self, body: bytes) -> None:
        fields = _multipart(self.headers["Content-Type"], body)
        data, info = fields["file"]
        plain = {k: v.decode() for k, (v, _) in fields.items() if k != "file"}
        with self.server.lock:
            index = len(self.server.received)
            self.server.received.append({"api": "openai", "data": data, "fields": plain, **info})
        segments = segments_for(data, index)
        text = " ".join(s["text"] for s in segments)
        if plain.get("response_format") == "verbose_json":
            seconds = wav_seconds(data) or 1.0
            self._answer(
                200,
                {
                    "task": "transcribe",
                    "language": "english",
                    "duration": seconds,
                    "text": text,
                    "segments": [
                        {
                            "id": i,
                            "seek": 0,
                            "start": s["start"],
                            "end": s["end"],
                            "text": s["text"],
                            "tokens": [1],
                            "temperature": 0.0,
                            "avg_logprob": -0.1,
                            "compression_ratio": 1.0,
                            "no_speech_prob": 0.01,
                        }
                        for i, s in enumerate(segments)
                    ],
                    "usage": {"type": "duration", "seconds": int(seconds + 0.999)},
                },
            )
        else:
            self._answer(
                200,
                {
                    "text": text,
                    "usage": {
                        "type": "tokens",
                        "input_tokens": 50,
                        "output_tokens": 7,
                        "total_tokens": 57,
                        "input_token_details": {"audio_tokens": 50, "text_tokens": 0},
                    },
                },
            )

    def _gemini(self, body: bytes) -> None:
        request = json.loads(body)
        parts = [p for c in request["contents"] for p in c["parts"]]
        # the REST API takes camelCase and snake_case names alike; google-genai sends the latter
        inline = next(
            p.get("inlineData") or p["inline_data"]
            for p in parts
            if "inlineData" in p or "inline_data" in p
        )
        data = base64.urlsafe_b64decode(inline["data"].replace("+", "-").replace("/", "_"))
        prompt = " ".join(p["text"] for p in parts if "text" in p)
        with self.server.lock:
            index = len(self.server.received)
            self.server.received.append(
                {
                    "api": "gemini",
                    "data": data,
                    "content_type": inline.get("mimeType") or inline["mime_type"],
                    "fields": {
                        "prompt": prompt,
                        "path": self.path,
                        "config": request.get("generationConfig")
                        or request.get("generation_config", {}),
                    },
                }
            )
        segments = segments_for(data, index)
        self._answer(
            200,
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": json.dumps(segments)}]},
                        "finishReason": "STOP",
                    }
                ],
                "usageMetadata": {
                    "promptTokenCount": 32,
                    "candidatesTokenCount": 9,
                    "totalTokenCount": 41,
                },
                "modelVersion": "gemini-2.5-flash",
            },
        )


@contextmanager
def speech_server() -> Iterator[SpeechServer]:
    server = SpeechServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
