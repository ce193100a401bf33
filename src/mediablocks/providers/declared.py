"""Endpoints declared at run time: `register_profile`.

An OpenAI-compatible server (DashScope/Qwen, Kimi, LM Studio, LocalAI, Workers AI...) speaks
OpenAI Chat's wire format but takes its own media. ``mb.register_profile("qwen",
image_types=["jpeg", "png"], max_image_bytes=10_000_000, audio=["wav"], video="video_url")``
makes it a provider like the shipped ones: `prepare` converts and fits media to exactly what it
declares (and reports it), `encode` refuses anything else and writes ``video_url`` parts where
declared, `decode`, `estimate_tokens` and `validate` know the name, and the capability matrix
gets its row. The same keys come from a dict or a JSON file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace as with_fields
from types import MappingProxyType
from typing import Any

from .._checks import check_bool, check_size
from ..errors import InvalidOptionError
from ..limits import ProviderLimits
from ..mime import normalize_mime
from .registry import Capabilities, Profile, Provider, declare, forget, limits_for, provider_entry

__all__ = ["PROFILE_KEYS", "register_profile", "unregister_profile"]

_SHORT = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
    "heic": "image/heic",
    "avif": "image/avif",
    "bmp": "image/bmp",
    "tif": "image/tiff",
    "tiff": "image/tiff",
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
    "opus": "audio/opus",
    "m4a": "audio/mp4",
    "aac": "audio/aac",
    "webm": "video/webm",
    "mp4": "video/mp4",
    "mov": "video/quicktime",
    "mpeg": "video/mpeg",
    "avi": "video/x-msvideo",
    "mkv": "video/x-matroska",
    "pdf": "application/pdf",
    "txt": "text/plain",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
_NAMES = {
    "image/jpeg": "JPEG",
    "image/png": "PNG",
    "image/gif": "GIF",
    "image/webp": "WebP",
    "audio/wav": "WAV",
    "audio/mpeg": "MP3",
    "video/mp4": "MP4",
    "video/webm": "WebM",
    "video/quicktime": "MOV",
    "video/mpeg": "MPEG",
    "application/pdf": "PDF",
}
"""How the capability matrix writes a type."""
_DEFAULT_VIDEO = ("video/mp4", "video/webm")
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}\Z")
_MAX_FILE_BYTES = 1024 * 1024

_SIZES = (
    "max_image_bytes",
    "max_total_image_bytes",
    "max_image_pixels",
    "max_image_side",
    "max_images",
    "max_audio_bytes",
    "max_video_bytes",
    "max_document_bytes",
    "max_document_pages",
    "max_documents",
    "max_request_bytes",
)
_SECONDS = ("max_audio_seconds", "max_video_seconds")

PROFILE_KEYS = frozenset(
    {
        "name",
        "base",
        "title",
        "aliases",
        "image_types",
        "audio",
        "video",
        "video_types",
        "documents",
        "tool_result_media",
        "fetches_urls",
        "animated_images",
        "image_bytes_measure",
        "request_bytes_measure",
        "source",
        "replace",
        *_SIZES,
        *_SECONDS,
    }
)
"""Every key `register_profile` takes, as keywords, dict keys or JSON object keys."""


def register_profile(
    name: str | Mapping[str, Any] | os.PathLike[str],
    base: str = "openai-chat",
    **declared: Any,
) -> Provider:
    """Declare an endpoint by what it takes; returns its registry entry.

    ``name`` is the provider name to use with `prepare`, `encode` and the rest (or a dict, or the
    path of a JSON file, holding the same keys, ``name`` among them). ``base`` is the wire format
    it speaks (``"openai-chat"``). The keys (`PROFILE_KEYS`):

    - ``image_types`` (``["jpeg", "png"]`` or MIME types; none: no images), ``max_image_bytes``,
      ``max_total_image_bytes``, ``max_image_pixels``, ``max_image_side``, ``max_images``,
      ``animated_images``, ``image_bytes_measure`` (``"raw"`` or ``"base64"``);
    - ``audio``: ``None`` (no audio input) or its formats (``["wav", "mp3"]``),
      ``max_audio_bytes``, ``max_audio_seconds``;
    - ``video``: ``"video_url"`` (``video_url`` parts, types ``video_types``, default MP4 and
      WebM), ``"frames"`` (sent as timestamped frames) or ``None`` (no video, not even frames);
      ``max_video_bytes``, ``max_video_seconds``;
    - ``documents``: ``None`` or the document types it reads (``["pdf"]``), with
      ``max_document_bytes``, ``max_document_pages``, ``max_documents``;
    - ``max_request_bytes`` and ``request_bytes_measure``;
    - ``tool_result_media``: ``"user_message"`` (media in tool results moves to a user message
      after them, the default) or ``None`` (refused); ``fetches_urls``: ``False`` when the server
      fetches no URL (URL media is then downloaded, safely, and inlined);
    - ``title``, ``aliases``, ``source`` (where its limits are documented), and ``replace=True``
      to declare a name again.

    Types must be ones ``base``'s translator can carry (OpenAI Chat: PNG, JPEG, WebP and GIF
    images, WAV and MP3 audio, PDF files). Raises `InvalidOptionError` naming the key at fault.
    """
    keys = _keys(name, base, declared)
    entry = _entry(keys)
    declare(entry, replace=bool(keys.get("replace", False)))
    from . import forget_translator

    forget_translator(entry.name)
    return entry


def unregister_profile(name: str) -> bool:
    """Forget a declared profile (True when there was one). Shipped providers stay."""
    from . import forget_translator

    gone = forget(name)
    forget_translator(name)
    return gone


# -- reading the declaration ----------------------------------------------------------------------


def _keys(name: Any, base: str, declared: dict[str, Any]) -> dict[str, Any]:
    if isinstance(name, os.PathLike):
        found = _read_json(os.fspath(name))
        return {**found, **declared}
    if isinstance(name, Mapping):
        return {"base": base, **dict(name), **declared}
    return {"name": name, "base": base, **declared}


def _read_json(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidOptionError(f"register_profile: cannot read {path!r}: {exc}") from None
    if len(data) > _MAX_FILE_BYTES:
        raise InvalidOptionError(f"register_profile: {path!r} is over 1 MiB")
    try:
        found = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise InvalidOptionError(f"register_profile: {path!r} is not JSON: {exc}") from None
    if not isinstance(found, dict):
        raise InvalidOptionError(f"register_profile: {path!r} must hold one JSON object")
    return found


def _entry(keys: dict[str, Any]) -> Provider:
    unknown = sorted(set(keys) - PROFILE_KEYS)
    if unknown:
        raise InvalidOptionError(
            f"register_profile: unknown key(s) {', '.join(map(repr, unknown))}; "
            f"the keys are {', '.join(sorted(PROFILE_KEYS))}"
        )
    name = keys.get("name")
    if not isinstance(name, str) or not _NAME.match(name.strip().lower().replace("_", "-")):
        raise InvalidOptionError(
            f"register_profile: name must be 1-64 letters, digits, '.', '_' or '-', got {name!r}"
        )
    name = name.strip().lower().replace("_", "-")
    base_entry = provider_entry(str(keys.get("base", "openai-chat")))
    base = base_entry.profile.base if base_entry.profile is not None else base_entry.name
    base_entry = provider_entry(base)
    carries = limits_for(base)
    owner = f"register_profile({name!r})"
    for size in _SIZES:
        check_size(owner, size, keys.get(size), optional=True)
    for seconds in _SECONDS:
        value = keys.get(seconds)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if value is not None and not (number and 0 < value < float("inf")):
            raise InvalidOptionError(f"{owner}.{seconds} must be a positive number of seconds")
    for flag in ("fetches_urls", "animated_images", "replace"):
        if flag in keys:
            check_bool(owner, flag, keys[flag])
    images = _types(owner, "image_types", keys.get("image_types"), "image/", carries.image_types)
    audio = _types(owner, "audio", keys.get("audio"), "audio/", carries.audio_types)
    documents = _types(
        owner, "documents", keys.get("documents"), "", carries.document_types, kind="document"
    )
    video = keys.get("video")
    if video not in ("video_url", "frames", None):
        raise InvalidOptionError(f"{owner}.video must be 'video_url', 'frames' or None")
    if video == "video_url" and base != "openai-chat":
        raise InvalidOptionError(f"{owner}: video_url parts are OpenAI Chat's; base is {base}")
    videos: frozenset[str] = frozenset()
    if video == "video_url":
        videos = _types(owner, "video_types", keys.get("video_types", _DEFAULT_VIDEO), "video/")
        if not videos:
            raise InvalidOptionError(f"{owner}.video_types: at least one type for video_url")
    elif "video_types" in keys:
        raise InvalidOptionError(f"{owner}.video_types goes with video='video_url'")
    if video == "frames" and "image/jpeg" not in images:
        raise InvalidOptionError(f"{owner}: video='frames' needs 'jpeg' among image_types")
    tool_media = keys.get("tool_result_media", "user_message")
    if tool_media not in ("user_message", None, "error"):
        raise InvalidOptionError(f"{owner}.tool_result_media must be 'user_message' or None")
    measures: dict[str, Any] = {}
    for measure in ("image_bytes_measure", "request_bytes_measure"):
        if measure in keys:
            if keys[measure] not in ("raw", "base64"):
                raise InvalidOptionError(f"{owner}.{measure} must be 'raw' or 'base64'")
            measures[measure] = keys[measure]
    source = keys.get("source") or f"declared at run time: mb.register_profile({name!r}, ...)"
    if not isinstance(source, str):
        raise InvalidOptionError(f"{owner}.source must be text")
    numbers: dict[str, Any] = {key: keys.get(key) for key in (*_SIZES, *_SECONDS)}
    limits = ProviderLimits(
        provider=name,
        image_types=images,
        audio_types=audio,
        video_types=videos,
        document_types=documents,
        video_frames=video is not None,
        animated_images=bool(keys.get("animated_images", True)),
        sources=MappingProxyType({"*": source}),
        **numbers,
        **measures,
    )
    fetches = bool(keys.get("fetches_urls", True))
    aliases = _aliases(owner, keys.get("aliases", ()), name)
    title = keys.get("title") or name
    if not isinstance(title, str):
        raise InvalidOptionError(f"{owner}.title must be text")
    differences = {"declared": "at run time, by mb.register_profile"}
    return with_fields(
        base_entry,
        name=name,
        title=title,
        aliases=aliases,
        sdk_call="openai.OpenAI(base_url=...).chat.completions.create(model=..., **fields)"
        if base == "openai-chat"
        else base_entry.sdk_call,
        capabilities=_capabilities(base_entry, limits, video, fetches, tool_media),
        docs_page="openai-compatible.md" if base == "openai-chat" else base_entry.docs_page,
        profile=Profile(
            base=base,
            differences=MappingProxyType(differences),
            parts=MappingProxyType({}),
            video_url=video == "video_url",
            fetches_urls=fetches,
            tool_result_media="user_message" if tool_media == "user_message" else "error",
        ),
        declared_limits=limits,
    )


def _types(
    owner: str,
    key: str,
    value: Any,
    prefix: str,
    carried: frozenset[str] | None = None,
    *,
    kind: str = "",
) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidOptionError(f"{owner}.{key} must be a list of types (['jpeg', 'png'])")
    out = set()
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise InvalidOptionError(f"{owner}.{key}: {item!r} is not a type")
        text = item.strip().lower().lstrip(".")
        try:
            mime = _SHORT.get(text) or normalize_mime(text)
        except ValueError:
            raise InvalidOptionError(f"{owner}.{key}: {item!r} is not a type") from None
        if prefix and not mime.startswith(prefix):
            raise InvalidOptionError(f"{owner}.{key}: {item!r} is not {prefix[:-1]} media")
        if carried is not None and mime not in carried:
            shown = ", ".join(sorted(_NAMES.get(m, m) for m in carried)) or "none"
            raise InvalidOptionError(
                f"{owner}.{key}: {item!r} cannot be carried by the base wire format "
                f"(it carries {shown})"
            )
        out.add(mime)
    return frozenset(out)


def _aliases(owner: str, value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidOptionError(f"{owner}.aliases must be a list of names")
    out = []
    for alias in value:
        key = alias.strip().lower().replace("_", "-") if isinstance(alias, str) else ""
        if not _NAME.match(key) or key == name:
            raise InvalidOptionError(f"{owner}.aliases: {alias!r} is not a usable name")
        out.append(key)
    return tuple(dict.fromkeys(out))


def _shown(types: frozenset[str]) -> str:
    return ", ".join(sorted(_NAMES.get(mime, mime) for mime in types)) or "—"


def _capabilities(
    base: Provider, limits: ProviderLimits, video: str | None, fetches: bool, tool_media: Any
) -> Capabilities:
    if video == "video_url":
        shown_video = f"{_shown(limits.video_types)} (`video_url`)"
    elif video == "frames":
        shown_video = "as JPEG frames"
    else:
        shown_video = "—"
    return Capabilities(
        images=_shown(limits.image_types),
        audio=_shown(limits.audio_types),
        video=shown_video,
        documents=_shown(limits.document_types),
        tool_result_media="moved to a user message¹" if tool_media == "user_message" else "—",
        url_media=("images: the URL; others inlined" if fetches else "inlined")
        if base.name == "openai-chat"
        else base.capabilities.url_media,
        thinking=base.capabilities.thinking,
    )
