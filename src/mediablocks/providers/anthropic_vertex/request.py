"""Anthropic Messages request fields on Google Vertex AI: Anthropic's, with the platform's envelope
(``anthropic_version`` in the JSON body, the model in the URL, not the body)."""

from __future__ import annotations

from typing import Any

from ..anthropic.platforms import platform_decode_fields, platform_request_fields
from ..anthropic.request import MESSAGE_FIELDS, REQUIRED_FIELDS, encode_fields, response_body
from .translate import ANTHROPIC_VERSION

__all__ = [
    "MESSAGE_FIELDS",
    "REQUIRED_FIELDS",
    "add_request_fields",
    "decode_fields",
    "encode_fields",
    "response_body",
]

add_request_fields = platform_request_fields


def decode_fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(Request fields, the rest verbatim)`` of a request body or SDK call."""
    return platform_decode_fields(body, ANTHROPIC_VERSION)
