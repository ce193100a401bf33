"""Amazon Bedrock Converse limits: what `mb.prepare` fits media to, each number with its source."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from ...limits import MB, WEB_IMAGES, ProviderLimits, with_sources
from ..anthropic.limits import LIMITS as ANTHROPIC_LIMITS

_BEDROCK_MESSAGE = (
    "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html "
    "(content restrictions)"
)
_BEDROCK_SHAPES = "botocore bedrock-runtime service-2.json (ImageFormat, DocumentFormat ...)"
_BEDROCK_VIDEO = "botocore bedrock-runtime service-2.json (VideoSource: base64 below 25MB)"

LIMITS = ProviderLimits(
    provider="bedrock",
    image_types=WEB_IMAGES,
    audio_types=frozenset(
        {
            "audio/mpeg",
            "audio/opus",
            "audio/wav",
            "audio/aac",
            "audio/flac",
            "audio/mp4",
            "audio/x-m4a",
            "audio/ogg",
            "audio/x-matroska",
            "audio/webm",
            "audio/pcm",
        }
    ),
    video_types=frozenset(
        {
            "video/x-matroska",
            "video/quicktime",
            "video/mp4",
            "video/webm",
            "video/x-flv",
            "video/mpeg",
            "video/x-ms-wmv",
            "video/3gpp",
        }
    ),
    document_types=frozenset(
        {
            "application/pdf",
            "text/csv",
            "application/msword",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.ms-excel",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "text/html",
            "text/plain",
            "text/markdown",
        }
    ),
    max_image_bytes=3_750_000,
    image_bytes_measure="raw",
    max_image_side=8000,
    max_images=20,
    max_document_bytes=4_500_000,
    document_bytes_measure="raw",
    max_documents=5,
    max_video_bytes=25 * MB,
    video_bytes_measure="base64",
    sources=MappingProxyType(
        {
            "*": _BEDROCK_MESSAGE,
            "image_types": _BEDROCK_SHAPES,
            "audio_types": _BEDROCK_SHAPES,
            "video_types": _BEDROCK_SHAPES,
            "document_types": _BEDROCK_SHAPES,
            "max_video_bytes": _BEDROCK_VIDEO,
            "video_bytes_measure": _BEDROCK_VIDEO,
        }
    ),
)


def for_model(limits: ProviderLimits, model: str) -> ProviderLimits:
    """Claude on Bedrock: Anthropic's own pixel and page limits apply too."""
    name = model.lower()
    if "anthropic.claude" in name:
        # Claude on Bedrock: Anthropic's own pixel and page limits apply too.
        return with_sources(
            limits,
            model,
            optimal_image_side=ANTHROPIC_LIMITS.optimal_image_side,
            optimal_image_pixels=ANTHROPIC_LIMITS.optimal_image_pixels,
            max_document_pages=ANTHROPIC_LIMITS.max_document_pages,
            video_types=frozenset(),
            audio_types=frozenset(),
        )
    return replace(limits, model=model)
