"""vLLM limits (an OpenAI-compatible endpoint), each number with its source."""

from __future__ import annotations

from types import MappingProxyType

from ...limits import WEB_IMAGES, ProviderLimits

_VLLM = (
    "https://docs.vllm.ai/en/latest/features/multimodal_inputs.html (OpenAI-compatible server: "
    "image_url, input_audio and video_url parts; limits per prompt are the server's "
    "--limit-mm-per-prompt)"
)

LIMITS = ProviderLimits(
    provider="vllm",
    image_types=WEB_IMAGES,
    audio_types=frozenset({"audio/wav", "audio/mpeg"}),
    video_types=frozenset({"video/mp4", "video/webm"}),
    sources=MappingProxyType({"*": _VLLM}),
)
