"""Uploaded media stays portable: a history uploaded for one provider encodes for the others,
gains copies at a second provider without a second upload, and finds its bytes again."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.sources import FileCopy, FileIdSource
from tests.conftest import make_jpeg, make_pdf, make_png
from tests.uploading.clients import anthropic_client, openai_client, s3_client
from tests.uploading.upload_server import UploadServer, running


@pytest.fixture
def server() -> Iterator[UploadServer]:
    with running() as srv:
        yield srv


PNG = make_png((120, 80), color="orange")
PDF = make_pdf()
JPEG = make_jpeg((90, 60))


def agent_history() -> list[mb.Message]:
    """A user photo and PDF, then a tool result holding a screenshot."""
    return [
        mb.UserMessage(
            content=[
                mb.TextBlock(text="Compare the photo with the report."),
                mb.ImageBlock.from_bytes(JPEG),
                mb.FileBlock.from_bytes(PDF, filename="report.pdf"),
            ]
        ),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="screen", args={})]),
        mb.ToolMessage(
            content=[mb.ToolResultBlock(tool_call_id="c1", content=[mb.ImageBlock.from_bytes(PNG)])]
        ),
    ]


def sources(messages: list[mb.Message]) -> list[Any]:
    found = []
    for message in messages:
        for block in message.content:
            if isinstance(block, mb.MediaBlock):
                found.append(block.source)
            elif isinstance(block, mb.ToolResultBlock) and not isinstance(block.content, str):
                found.extend(b.source for b in block.content if isinstance(b, mb.MediaBlock))
    return found


def uploads(server: UploadServer, api: str) -> list[bytes]:
    return [data for name, data, _ in server.received if name == api]


def test_a_history_uploaded_for_bedrock_encodes_unchanged_for_every_other_provider(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    s3 = s3_client(server, monkeypatch)
    uploaded = mb.upload(agent_history(), "bedrock", s3, bucket="media", prefix="in/")
    assert sorted(uploads(server, "s3")) == sorted([JPEG, PDF, PNG])
    for source in sources(uploaded):
        assert isinstance(source, FileIdSource)
        assert source.file_id.startswith("s3://media/in/")
        assert [c.store for c in source.copies] == ["s3"]
    assert sources(uploaded)[0].sha256 == hashlib.sha256(JPEG).hexdigest()

    bedrock = mb.encode(uploaded, "bedrock")["messages"][0]["content"][1]
    assert bedrock["image"]["source"]["s3Location"]["uri"].startswith("s3://media/in/")

    anthropic = mb.encode(uploaded, "anthropic")["messages"]
    assert anthropic[0]["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/jpeg",
        "data": base64.b64encode(JPEG).decode(),
    }
    assert base64.b64decode(anthropic[0]["content"][2]["source"]["data"]) == PDF
    assert base64.b64decode(anthropic[2]["content"][0]["content"][0]["source"]["data"]) == PNG

    gemini = mb.encode(uploaded, "gemini")["contents"]
    assert gemini[0]["parts"][1] == {"inline_data": {"mime_type": "image/jpeg", "data": JPEG}}

    chat = mb.encode(uploaded, "openai")["messages"]
    assert chat[0]["content"][1]["image_url"]["url"] == (
        "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
    )
    responses = mb.encode(uploaded, "openai-responses")["input"]
    assert responses[0]["content"][2]["file_data"].endswith(base64.b64encode(PDF).decode())
    assert len(server.received) == 3  # encoding uploaded nothing


def test_a_second_provider_gets_a_copy_once_by_hash(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    s3 = s3_client(server, monkeypatch)
    anthropic = anthropic_client(server)
    cache = mb.MemoryUploadCache()
    first = mb.upload(agent_history(), "bedrock", s3, bucket="media", cache=cache)
    second = mb.upload(first, "anthropic", anthropic, cache=cache)
    assert sorted(uploads(server, "anthropic")) == sorted([JPEG, PDF, PNG])
    third = mb.upload(second, "anthropic", anthropic, cache=cache)
    again = mb.upload(first, "anthropic", anthropic, cache=cache)  # the same hashes: cache hits
    assert len(uploads(server, "anthropic")) == 3
    for source in sources(third) + sources(again):
        assert [c.store for c in source.copies] == ["s3", "anthropic"]
        assert source.file_id.startswith("file_")
    # Each provider gets its own copy's id; the others get the bytes.
    body = mb.encode(third, "anthropic")["messages"]
    assert body[0]["content"][1]["source"]["type"] == "file"
    assert body[2]["content"][0]["content"][0]["source"]["type"] == "file"
    bedrock = mb.encode(third, "bedrock")["messages"][0]["content"][1]["image"]["source"]
    assert bedrock["s3Location"]["uri"].startswith("s3://media/")
    gemini = mb.encode(third, "gemini")["contents"][0]["parts"][1]
    assert gemini["inline_data"]["data"] == JPEG


def test_a_saved_history_reaches_a_second_provider_without_its_bytes(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    s3 = s3_client(server, monkeypatch)
    anthropic = anthropic_client(server)
    cache = mb.DirectoryUploadCache(tmp_path / "cache")
    mb.upload(agent_history(), "anthropic", anthropic, cache=cache)
    uploaded = mb.upload(agent_history(), "bedrock", s3, bucket="media", cache=cache)
    saved = mb.dump_messages(uploaded)
    assert base64.b64encode(JPEG).decode() not in saved  # no bytes in the saved history
    loaded = mb.load_messages(saved)
    # The hash is enough: the cache knows the Anthropic copies, nothing is read or uploaded.
    moved = mb.upload(
        loaded, "anthropic", anthropic, cache=mb.DirectoryUploadCache(tmp_path / "cache")
    )
    assert len(uploads(server, "anthropic")) == 3
    assert mb.encode(moved, "anthropic")["messages"][0]["content"][1]["source"]["type"] == "file"
    # Gemini has no copy: the bytes are needed, and said to be missing, before anything is sent.
    with pytest.raises(mb.SourceError, match="media_store"):
        mb.encode(loaded, "gemini")
    # The provider's own download is a way back: the S3 bucket, as a media store.
    store = mb.S3MediaStore(s3, "media")
    parts = mb.encode(loaded, "gemini", media_store=store)["contents"][0]["parts"]
    assert parts[1]["inline_data"]["data"] == JPEG
    assert parts[2]["inline_data"]["data"] == PDF


def test_media_store_kept_at_upload_brings_the_bytes_back(
    server: UploadServer, tmp_path: Path
) -> None:
    store = mb.DirectoryMediaStore(tmp_path / "media")
    uploaded = mb.upload(agent_history(), "anthropic", anthropic_client(server), media_store=store)
    loaded = mb.load_messages(mb.dump_messages(uploaded))
    body = mb.encode(loaded, "openai", media_store=mb.DirectoryMediaStore(tmp_path / "media"))
    assert body["messages"][0]["content"][1]["image_url"]["url"].endswith(
        base64.b64encode(JPEG).decode()
    )
    # A second upload to another store reads them from the media store too.
    mb.upload(loaded, "openai-responses", openai_client(server), media_store=store)
    assert sorted(uploads(server, "openai")) == sorted([JPEG, PDF, PNG])


def test_without_any_way_back_a_second_upload_names_the_block(server: UploadServer) -> None:
    uploaded = mb.upload(agent_history(), "anthropic", anthropic_client(server))
    loaded = mb.load_messages(mb.dump_messages(uploaded))
    with pytest.raises(mb.UploadError, match=r"message 0 block 1 .*ImageBlock.*media_store"):
        mb.upload(loaded, "openai-responses", openai_client(server))


def test_the_origin_path_is_read_only_where_the_caller_allowed(
    server: UploadServer, tmp_path: Path
) -> None:
    photo = tmp_path / "photo.png"
    photo.write_bytes(PNG)
    history = [mb.UserMessage(content=[mb.ImageBlock.from_path(photo)])]
    uploaded = mb.upload(history, "anthropic", anthropic_client(server))
    loaded = mb.load_messages(mb.dump_messages(uploaded))
    assert sources(loaded)[0].origin == mb.sources.PathSource(path=str(photo))
    with pytest.raises(mb.PathNotAllowedError, match="allowed_roots"):
        mb.encode(loaded, "gemini")
    allowed = mb.FetchPolicy(allowed_roots=[str(tmp_path)])
    parts = mb.encode(loaded, "gemini", policy=allowed)["contents"][0]["parts"]
    assert parts[0]["inline_data"]["data"] == PNG
    # The file changed since the upload: its bytes are not the uploaded ones, and never sent.
    again = mb.load_messages(mb.dump_messages(uploaded))
    photo.write_bytes(make_png((10, 10)))
    with pytest.raises(mb.SourceError, match="SHA-256 differs"):
        mb.encode(again, "gemini", policy=allowed)


def test_encode_with_an_uploader_uploads_what_the_provider_lacks_once(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    uploaded = mb.upload(agent_history(), "bedrock", s3_client(server, monkeypatch), bucket="b")
    uploader = mb.Uploader(anthropic_client(server))
    for _ in range(3):
        body = mb.encode(uploaded, "anthropic", uploader=uploader)
        assert body["messages"][0]["content"][1]["source"]["type"] == "file"
    assert len(uploads(server, "anthropic")) == 3
    with pytest.raises(mb.InvalidOptionError, match="mistral"):
        mb.encode(uploaded, "mistral", uploader=uploader)
    with pytest.raises(mb.InvalidOptionError, match="unknown upload option"):
        mb.Uploader(object(), options={"colour": "red"})


def test_openai_files_expire_when_asked_and_expired_copies_are_not_sent(
    server: UploadServer,
) -> None:
    client = openai_client(server)
    history = [mb.UserMessage(content=[mb.FileBlock.from_bytes(PDF, filename="r.pdf")])]
    uploaded = mb.upload(history, "openai-responses", client, expires_in=3600)
    (info,) = [info for api, _, info in server.received if api == "openai"]
    assert info["expires_after"] == {"anchor": "created_at", "seconds": 3600}
    (source,) = sources(uploaded)
    (copy,) = source.copies
    assert copy.expires_at is not None
    assert 3500 < copy.expires_at - time.time() <= 3600
    assert mb.encode(uploaded, "openai-responses")["input"][0]["content"][0]["file_id"]
    # The same block an hour later: the copy is past its expiry, detected before sending.
    late = copy.model_copy(update={"expires_at": time.time() - 1})
    stale = source.model_copy(update={"copies": (late,)})
    block = uploaded[0].content[0].model_copy(update={"source": stale})
    part = mb.encode([mb.UserMessage(content=[block])], "openai-responses")["input"][0]
    assert part["content"][0]["file_data"].endswith(base64.b64encode(PDF).decode())  # inlined
    loaded = mb.load_messages(mb.dump_messages([mb.UserMessage(content=[block])]))
    with pytest.raises(mb.ExpiredUploadError, match="expired") as caught:
        mb.encode(loaded, "openai-responses")
    assert caught.value.expired_at == late.expires_at
    # Uploading again replaces the expired copy (gone at OpenAI) instead of trusting it.
    server.delete(source.file_id)
    fresh = mb.upload([mb.UserMessage(content=[block])], "openai-responses", client)
    assert sources(fresh)[0].file_id != source.file_id


@pytest.mark.parametrize(
    ("provider", "words"),
    [("anthropic", "until they are deleted"), ("gemini", "48 hours"), ("bedrock", "lifecycle")],
)
def test_expires_in_where_the_provider_has_no_such_option_says_what_it_does(
    provider: str, words: str
) -> None:
    history = [mb.UserMessage(content=[mb.ImageBlock.from_bytes(PNG)])]
    with pytest.raises(mb.InvalidOptionError, match=words):
        mb.upload(history, provider, object(), bucket="b", expires_in=3600)


@pytest.mark.parametrize("value", [60, 10**8, float("nan"), "1h", True])
def test_expires_in_out_of_range_is_refused(value: Any) -> None:
    history = [mb.UserMessage(content=[mb.ImageBlock.from_bytes(PNG)])]
    with pytest.raises(mb.InvalidOptionError, match="expires_in"):
        mb.upload(history, "openai-responses", object(), expires_in=value)


def test_a_plain_file_id_from_a_provider_still_goes_only_to_its_provider() -> None:
    block = mb.ImageBlock.from_file_id("file_9", "image/png", provider="anthropic")
    message = mb.UserMessage(content=[block])
    assert mb.encode([message], "anthropic")["messages"][0]["content"][0]["source"] == {
        "type": "file",
        "file_id": "file_9",
    }
    with pytest.raises(mb.UnsupportedBlockError):
        mb.encode([message], "gemini")
    assert mb.dump_messages([message]).count('"sha256"') == 0


# -- stored histories are untrusted ---------------------------------------------------------


def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    _nested,
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["sha256", "size", "copies", "origin", "file_id", "provider"]),
        _JSON,
        max_size=4,
    ),
    st.lists(
        st.fixed_dictionaries(
            {"store": st.sampled_from(["s3", "openai", "ftp", 3]), "reference": _JSON},
            optional={"expires_at": _JSON, "account": _JSON, "uploaded_at": _JSON},
        ),
        max_size=3,
    ),
)
def test_a_stored_file_id_loads_soundly_or_raises_decode_error(
    fields: dict[str, Any], copies: list[dict[str, Any]]
) -> None:
    import json

    source = {"kind": "file_id", "file_id": "s3://b/k", **fields, "copies": copies}
    block = {"type": "image", "source": source, "declared_mime": "image/png"}
    text = json.dumps(
        {
            "format": "mediablocks.messages",
            "version": 1,
            "messages": [{"role": "user", "content": [block]}],
        },
        default=str,
    )
    try:
        (message,) = mb.load_messages(text)
    except mb.DecodeError:
        return
    loaded = message.content[0].source
    assert isinstance(loaded, FileIdSource)
    for copy in loaded.copies:
        assert isinstance(copy, FileCopy)
        assert copy.reference.isprintable()
    assert loaded.sha256 is None or len(loaded.sha256) == 64
    with contextlib.suppress(mb.MediaBlocksError):  # refused loudly, never another exception
        mb.encode([message], "gemini")


async def test_aupload_adds_a_copy_at_a_second_store(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await mb.aupload(agent_history(), "bedrock", s3_client(server, monkeypatch), bucket="b")
    client = anthropic_client(server, asynchronous=True)
    second = await mb.aupload(first, "anthropic", client)
    assert sorted(uploads(server, "anthropic")) == sorted([JPEG, PDF, PNG])
    assert [[c.store for c in s.copies] for s in sources(second)] == [["s3", "anthropic"]] * 3
    again = await mb.aupload(second, "anthropic", client)
    assert len(uploads(server, "anthropic")) == 3
    assert [s.file_id for s in sources(again)] == [s.file_id for s in sources(second)]


def test_s3_media_store_puts_finds_and_checks_what_it_reads(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    s3 = s3_client(server, monkeypatch)
    store = mb.S3MediaStore(s3, "media", "keep/")
    digest = store.put(PNG)
    assert digest == hashlib.sha256(PNG).hexdigest()
    assert list(server.remaining()["s3"]) == [f"media/keep/{digest}.png"]
    assert store.put(PNG) == digest  # there already: not written again
    assert len(uploads(server, "s3")) == 1
    assert store.find(digest[:10]) == [digest]
    assert store.get(digest) == PNG
    assert store.get(hashlib.sha256(JPEG).hexdigest()) is None
    server.files["s3"][f"media/keep/{digest}.png"] = b"replaced in the bucket"
    with pytest.raises(mb.SourceError, match="not the ones its name says"):
        store.get(digest)
    tiny = mb.S3MediaStore(s3, "media", "keep/", max_bytes=4)
    with pytest.raises(mb.TooLargeError):
        tiny.get(digest)


def test_uploaded_media_fits_a_session_and_counts_its_tokens(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    shots = [make_png((900 + n, 600), color=(n * 30, 90, 200)) for n in range(6)]
    history: list[mb.Message] = []
    for number, shot in enumerate(shots):
        history.append(
            mb.AssistantMessage(content=[mb.ToolCallBlock(id=f"c{number}", name="s", args={})])
        )
        history.append(
            mb.ToolMessage(
                content=[
                    mb.ToolResultBlock(
                        tool_call_id=f"c{number}", content=[mb.ImageBlock.from_bytes(shot)]
                    )
                ]
            )
        )
    store = mb.MemoryMediaStore()
    uploaded = mb.upload(
        history, "bedrock", s3_client(server, monkeypatch), bucket="b", media_store=store
    )
    # In the process that uploaded them the bytes are here: tokens count, thumbnails are made.
    assert mb.estimate_tokens(uploaded, "anthropic") == mb.estimate_tokens(history, "anthropic")
    fitted = mb.fit_session(uploaded, "anthropic", keep_last_media=2, step=1)
    assert [e.became for e in fitted.report.evicted] == ["thumbnail"] * 4
    assert fitted.report.unestimated == 0
    # Saved and loaded, the session's store gives them back; without it they cannot be counted.
    loaded = mb.load_messages(mb.dump_messages(uploaded))
    with pytest.raises(mb.SourceError, match="cannot estimate tokens"):
        mb.estimate_tokens(loaded, "anthropic")
    again = mb.fit_session(loaded, "anthropic", keep_last_media=2, step=1, store=store)
    assert mb.dump_messages(again) == mb.dump_messages(
        mb.fit_session(uploaded, "anthropic", keep_last_media=2, step=1, store=store)
    )
    blind = mb.fit_session(
        mb.load_messages(mb.dump_messages(uploaded)), "anthropic", keep_last_media=2, step=1
    )
    assert blind.report.unestimated == 6
    assert {e.became for e in blind.report.evicted} == {"reference"}
    # Sent whole to Bedrock, the kept screenshots go by their S3 copies.
    body = mb.encode(again, "bedrock")["messages"]
    assert body[-1]["content"][0]["toolResult"]["content"][0]["image"]["source"]["s3Location"]


def test_an_origin_that_is_a_url_is_refused_when_loaded() -> None:
    source = {
        "kind": "file_id",
        "file_id": "file_1",
        "sha256": "a" * 64,
        "origin": {"kind": "url", "url": "http://169.254.169.254/latest/meta-data"},
    }
    text = (
        '{"format": "mediablocks.messages", "version": 1, "messages": [{"role": "user", '
        f'"content": [{{"type": "image", "source": {__import__("json").dumps(source)}}}]}}]}}'
    )
    with pytest.raises(mb.DecodeError):
        mb.load_messages(text)


def test_the_same_client_uploads_the_same_bytes_once_without_a_cache(
    server: UploadServer,
) -> None:
    client = anthropic_client(server)
    mb.upload(agent_history(), "anthropic", client)
    mb.upload(agent_history(), "anthropic", client)  # a new history, the same bytes
    assert len(uploads(server, "anthropic")) == 3
    mb.upload(agent_history(), "anthropic", anthropic_client(server))  # another client object
    assert len(uploads(server, "anthropic")) == 6
