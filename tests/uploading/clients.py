"""The official SDK clients pointed at the local upload server (upload_server.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.uploading.upload_server import UploadServer


def openai_client(server: UploadServer, *, asynchronous: bool = False) -> Any:
    import openai

    cls = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return cls(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)


def anthropic_client(server: UploadServer, *, asynchronous: bool = False) -> Any:
    import anthropic

    cls = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
    return cls(api_key="sk-ant-test", base_url=server.url, max_retries=0)


def gemini_client(server: UploadServer) -> Any:
    from google import genai

    return genai.Client(api_key="test-key", http_options={"base_url": server.url})


def s3_client(server: UploadServer, monkeypatch: pytest.MonkeyPatch) -> Any:
    import botocore.session
    from botocore.config import Config

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-test")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    session = botocore.session.get_session()
    return session.create_client(
        "s3",
        region_name="us-east-1",
        endpoint_url=server.url,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )
