"""OpenRouter limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import WEB_IMAGES, ProviderLimits

_OPENROUTER = (
    "https://openrouter.ai/docs/features/multimodal/overview (images, PDFs as file parts, "
    "audio as input_audio; https://openrouter.ai/docs/features/multimodal/videos: video_url "
    "parts, URL or data URL, mp4, mpeg, mov, webm; what a model takes depends on the model "
    "routed to)"
)

LIMITS = ProviderLimits(
    provider="openrouter",
    image_types=WEB_IMAGES,
    audio_types=frozenset({"audio/wav", "audio/mpeg"}),
    video_types=frozenset({"video/mp4", "video/mpeg", "video/quicktime", "video/webm"}),
    document_types=frozenset({"application/pdf"}),
    sources=MappingProxyType({"*": _OPENROUTER}),
)
