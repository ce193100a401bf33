"""List and delete what a cache uploaded, at all four stores, through the official SDKs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from tests.conftest import make_jpeg, make_pdf, make_png
from tests.uploading.clients import anthropic_client, gemini_client, openai_client, s3_client
from tests.uploading.upload_server import UploadServer, running


@pytest.fixture
def server() -> Iterator[UploadServer]:
    with running() as srv:
        yield srv


def history() -> list[mb.Message]:
    return [
        mb.UserMessage(
            content=[
                mb.ImageBlock.from_bytes(make_png((40, 30))),
                mb.ImageBlock.from_bytes(make_jpeg((50, 30))),
                mb.FileBlock.from_bytes(make_pdf(), filename="a.pdf"),
            ]
        )
    ]


def clients(server: UploadServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return {
        "openai-responses": openai_client(server),
        "anthropic": anthropic_client(server),
        "gemini": gemini_client(server),
        "bedrock": s3_client(server, monkeypatch),
    }


def listed_by_the_sdks(found: dict[str, Any]) -> dict[str, list[str]]:
    """What each provider's own list call says it holds."""
    openai, anthropic, gemini, s3 = found.values()
    return {
        "openai": [f.id for f in openai.files.list()],
        "anthropic": [f.id for f in anthropic.beta.files.list()],
        "gemini": [f.name for f in gemini.files.list()],
        "s3": [o["Key"] for o in s3.list_objects_v2(Bucket="media").get("Contents", [])],
    }


def test_list_then_delete_leaves_no_file_at_any_store(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = clients(server, monkeypatch)
    cache = mb.DirectoryUploadCache(tmp_path)
    for provider, client in found.items():
        mb.upload(history(), provider, client, cache=cache, bucket="media", prefix="run/")
    entries = mb.list_uploads(cache)
    assert sorted({e.store for e in entries}) == ["anthropic", "gemini", "openai", "s3"]
    assert len(entries) == 3 + 3 + 3 + 3
    assert all(e.uploaded_at is not None and e.uploaded_at <= time.time() for e in entries)
    assert [len(names) for names in listed_by_the_sdks(found).values()] == [3, 3, 3, 3]
    assert len(mb.list_uploads(cache, "bedrock")) == 3
    assert {e.store for e in mb.list_uploads(cache, "openai-chat")} == {"openai"}

    for provider, client in found.items():
        deleted = mb.delete_uploads(cache, provider, client, bucket="media", prefix="run/")
        assert len(deleted) == 3
    assert server.remaining() == {"openai": [], "anthropic": [], "gemini": [], "s3": []}
    assert listed_by_the_sdks(found) == {"openai": [], "anthropic": [], "gemini": [], "s3": []}
    assert mb.list_uploads(cache) == []
    assert sorted(api for api, _ in server.deletions) == sorted(
        ["openai", "anthropic", "gemini", "s3"] * 3
    )


def test_older_than_deletes_only_old_files(server: UploadServer, tmp_path: Path) -> None:
    client = anthropic_client(server)
    cache = mb.DirectoryUploadCache(tmp_path)
    mb.upload(history()[:1], "anthropic", client, cache=cache)
    old = {e.reference for e in mb.list_uploads(cache)}
    # Age the first uploads by an hour, as if they had been made then.
    import sqlite3

    with sqlite3.connect(tmp_path / "uploads.sqlite") as raw:
        raw.execute("UPDATE uploads SET uploaded_at = uploaded_at - 3600")
    mb.upload(
        [mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png((7, 7)))])],
        "anthropic",
        client,
        cache=cache,
    )
    assert len(mb.list_uploads(cache, older_than=1800)) == 3
    deleted = mb.delete_uploads(cache, "anthropic", client, older_than=1800)
    assert {e.reference for e in deleted} == old
    assert len(server.remaining()["anthropic"]) == 1
    from datetime import timedelta

    assert mb.list_uploads(cache, older_than=timedelta(minutes=30)) == []


def test_delete_only_touches_the_clients_account(server: UploadServer) -> None:
    import anthropic

    cache = mb.MemoryUploadCache()
    mine, other = (
        anthropic_client(server),
        anthropic.Anthropic(api_key="sk-ant-other", base_url=server.url, max_retries=0),
    )
    mb.upload(history(), "anthropic", mine, cache=cache)
    assert mb.delete_uploads(cache, "anthropic", other) == []
    assert len(server.remaining()["anthropic"]) == 3
    assert len(mb.delete_uploads(cache, "anthropic", mine)) == 3


def test_a_file_already_gone_counts_as_deleted(server: UploadServer) -> None:
    cache = mb.MemoryUploadCache()
    client = openai_client(server)
    uploaded = mb.upload(history(), "openai-responses", client, cache=cache)
    server.delete(uploaded[0].content[0].source.file_id)
    deleted = mb.delete_uploads(cache, "openai", client)
    assert len(deleted) == 3
    assert mb.list_uploads(cache) == []


def test_sdk_errors_and_caches_that_cannot_list(server: UploadServer) -> None:
    class Plain:
        def get(self, key: str) -> str | None:
            return None

        def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
            pass

    with pytest.raises(mb.InvalidOptionError, match="entries"):
        mb.list_uploads(Plain())  # type: ignore[arg-type]
    with pytest.raises(mb.InvalidOptionError, match="older_than"):
        mb.list_uploads(mb.MemoryUploadCache(), older_than=-1)
    cache = mb.MemoryUploadCache()
    client = anthropic_client(server)
    mb.upload(history()[:1], "anthropic", client, cache=cache)
    server.shutdown()
    server.server_close()
    with pytest.raises(mb.UploadError, match="deleting 'file_000"):
        mb.delete_uploads(cache, "anthropic", client)
