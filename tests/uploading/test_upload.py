"""mb.upload with the real SDKs against a real upload server on 127.0.0.1 (upload_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks.sources import FileIdSource
from tests.conftest import make_jpeg, make_pdf, make_png
from tests.uploading.upload_server import UploadServer, running


@pytest.fixture
def server() -> Iterator[UploadServer]:
    with running() as srv:
        yield srv


def _openai(server: UploadServer, *, asynchronous: bool = False) -> Any:
    import openai

    cls = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return cls(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)


def _anthropic(server: UploadServer, *, asynchronous: bool = False) -> Any:
    import anthropic

    cls = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
    return cls(api_key="sk-ant-test", base_url=server.url, max_retries=0)


def _gemini(server: UploadServer) -> Any:
    from google import genai

    return genai.Client(api_key="test-key", http_options={"base_url": server.url})


def _s3(server: UploadServer, monkeypatch: pytest.MonkeyPatch) -> Any:
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


def _sources(messages: list[mb.Message]) -> list[Any]:
    return [b.source for m in messages for b in m.content if isinstance(b, mb.MediaBlock)]


def test_openai_responses_uploads_images_and_pdfs_once(server: UploadServer) -> None:
    png, pdf = make_png(), make_pdf()
    client = _openai(server)
    cache = mb.MemoryUploadCache()
    message = mb.UserMessage(
        content=[
            mb.TextBlock(text="compare"),
            mb.ImageBlock.from_bytes(png),
            mb.FileBlock.from_bytes(pdf, filename="report.pdf"),
            mb.ImageBlock.from_bytes(png),  # the same bytes again: one upload
        ]
    )
    out = mb.upload([message], "openai-responses", client, cache=cache)
    assert server.apis() == ["openai", "openai"]
    assert [data for _, data, _ in server.received] == [png, pdf]
    assert [info["purpose"] for _, _, info in server.received] == ["user_data", "user_data"]
    assert server.received[1][2]["filename"] == "report.pdf"
    assert server.received[1][2]["content_type"] == "application/pdf"
    ids = [s.file_id for s in _sources(out)]
    assert ids == ["file-0001", "file-0002", "file-0001"]
    assert message.content[1].source.kind == "bytes"  # the input is not changed

    body = mb.encode(out, "openai-responses")
    parts = body["input"][0]["content"]
    assert parts[1] == {"type": "input_image", "file_id": "file-0001", "detail": "auto"} or (
        parts[1]["file_id"] == "file-0001"
    )
    assert parts[2]["file_id"] == "file-0002"
    assert "file_data" not in parts[2]

    again = mb.upload([message], "openai-responses", client, cache=cache)
    assert len(server.received) == 2  # both hits
    assert [s.file_id for s in _sources(again)] == ids


def test_openai_chat_uploads_pdf_and_keeps_images_inline(server: UploadServer) -> None:
    pdf, png = make_pdf(), make_png()
    message = mb.UserMessage(content=[mb.FileBlock.from_bytes(pdf), mb.ImageBlock.from_bytes(png)])
    out = mb.upload([message], "openai", _openai(server))
    assert [data for _, data, _ in server.received] == [pdf]
    body = mb.encode(out, "openai")
    parts = body["messages"][0]["content"]
    assert parts[0] == {"type": "file", "file": {"file_id": "file-0001"}}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_anthropic_uploads_through_the_beta_files_api(server: UploadServer) -> None:
    jpeg, pdf = make_jpeg(), make_pdf()
    messages: list[mb.Message] = [
        mb.UserMessage(content=[mb.ImageBlock.from_bytes(jpeg), mb.FileBlock.from_bytes(pdf)]),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="c1", name="scan", args={})]),
        mb.ToolMessage(
            content=[
                mb.ToolResultBlock(tool_call_id="c1", content=[mb.ImageBlock.from_bytes(jpeg)])
            ]
        ),
    ]
    out = mb.upload(messages, "anthropic", _anthropic(server))
    assert server.apis() == ["anthropic", "anthropic"]
    assert [data for _, data, _ in server.received] == [jpeg, pdf]
    assert "files-api" in server.received[0][2]["beta"]
    body = mb.encode(out, "anthropic")
    first = body["messages"][0]["content"]
    assert first[0]["source"] == {"type": "file", "file_id": "file_0001"}
    assert first[1]["source"] == {"type": "file", "file_id": "file_0002"}
    result = body["messages"][2]["content"][0]
    assert result["content"][0]["source"] == {"type": "file", "file_id": "file_0001"}


def test_gemini_resumable_upload_and_processing_wait(server: UploadServer) -> None:
    png = make_png((64, 48))
    server.processing_polls = 2  # PROCESSING on upload and on the first poll
    block = mb.ImageBlock.from_bytes(png)
    out = mb.upload([mb.UserMessage(content=[block])], "gemini", _gemini(server), wait=30)
    uploads = [(data, info) for api, data, info in server.received if api == "gemini"]
    assert len(uploads) == 1
    data, info = uploads[0]
    assert data == png
    assert "finalize" in info["command"]
    assert info["mimeType"] == "image/png"
    assert server.apis().count("gemini-get") == 2
    (source,) = _sources(out)
    assert source.file_id.endswith("/files/s1")
    body = mb.encode(out, "gemini")
    part = body["contents"][0]["parts"][0]
    assert part == {"file_data": {"file_uri": source.file_id, "mime_type": "image/png"}}


def test_bedrock_puts_objects_in_s3(server: UploadServer, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    png, pdf = make_png(), make_pdf()
    client = _s3(server, monkeypatch)
    cache = mb.MemoryUploadCache()
    message = mb.UserMessage(
        content=[mb.ImageBlock.from_bytes(png), mb.FileBlock.from_bytes(pdf, filename="a.pdf")]
    )
    out = mb.upload([message], "bedrock", client, bucket="media", prefix="in/", cache=cache)
    assert [data for _, data, _ in server.received] == [png, pdf]
    first = server.received[0][2]
    assert first["bucket"] == "media"
    assert first["key"] == f"in/{hashlib.sha256(png).hexdigest()}.png"
    assert first["content_type"] == "image/png"
    body = mb.encode(out, "bedrock")
    content = body["messages"][0]["content"]
    assert content[0]["image"]["source"] == {"s3Location": {"uri": f"s3://media/{first['key']}"}}
    assert content[1]["document"]["source"]["s3Location"]["uri"].startswith("s3://media/in/")
    mb.upload([message], "bedrock", client, bucket="media", prefix="in/", cache=cache)
    assert len(server.received) == 2


def test_min_bytes_leaves_small_media_inline(server: UploadServer) -> None:
    small, big = make_png((4, 4)), make_jpeg((300, 300))
    assert len(small) < 1000 < len(big)
    message = mb.UserMessage(
        content=[mb.ImageBlock.from_bytes(small), mb.ImageBlock.from_bytes(big)]
    )
    out = mb.upload([message], "anthropic", _anthropic(server), min_bytes=1000)
    kinds = [s.kind for s in _sources(out)]
    assert kinds == ["bytes", "file_id"]
    assert [data for _, data, _ in server.received] == [big]


def test_directory_cache_survives_a_new_cache_object(server: UploadServer, tmp_path: Path) -> None:
    png = make_png()
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(png)])
    mb.upload([message], "anthropic", _anthropic(server), cache=mb.DirectoryUploadCache(tmp_path))
    again = mb.upload(
        [message], "anthropic", _anthropic(server), cache=mb.DirectoryUploadCache(tmp_path)
    )
    assert len(server.received) == 1
    assert _sources(again)[0].file_id == "file_0001"


def test_the_cache_is_per_account(server: UploadServer) -> None:
    import anthropic

    png = make_png()
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(png)])
    cache = mb.MemoryUploadCache()
    mb.upload([message], "anthropic", _anthropic(server), cache=cache)
    other = anthropic.Anthropic(api_key="sk-ant-other", base_url=server.url, max_retries=0)
    mb.upload([message], "anthropic", other, cache=cache)
    mb.upload([message], "openai-responses", _openai(server), cache=cache)
    assert server.apis() == ["anthropic", "anthropic", "openai"]


def test_sdk_errors_become_upload_error_naming_the_block(server: UploadServer) -> None:
    server.fail_next = 1
    message = mb.UserMessage(content=[mb.FileBlock.from_bytes(make_pdf(), filename="x.pdf")])
    with pytest.raises(mb.UploadError, match=r"message 0 block 0 .*x\.pdf.*FileBlock\(.*anthropic"):
        mb.upload([message], "anthropic", _anthropic(server))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_upload_refused_for_now_says_its_status_and_when_to_retry(
    server: UploadServer, provider: str
) -> None:
    server.fail_next, server.fail_status, server.fail_headers = 1, 429, {"Retry-After": "7"}
    document = mb.FileBlock.from_bytes(make_pdf(), filename="report.pdf")
    client = _openai(server) if provider == "openai" else _anthropic(server)
    with pytest.raises(mb.UploadError) as caught:
        mb.upload([("user", ["read", document])], provider, client)
    error = caught.value
    assert (error.status, error.retry_after) == (429, 7.0)
    assert (error.code, error.http_status) == ("upload_failed", 502)
    assert error.block is document


def test_s3_errors_and_missing_bucket(
    server: UploadServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = _s3(server, monkeypatch)
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    with pytest.raises(mb.InvalidOptionError, match="bucket"):
        mb.upload([message], "bedrock", client)
    server.fail_next = 1
    with pytest.raises(mb.UploadError, match="ImageBlock") as caught:
        mb.upload([message], "bedrock", client, bucket="media")
    assert isinstance(caught.value, OSError)
    assert caught.value.status == 403  # botocore's ClientError, read from its response


def test_providers_without_a_file_store_raise() -> None:
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    with pytest.raises(mb.InvalidOptionError, match="mistral"):
        mb.upload([message], "mistral", object())


def test_references_already_remote_are_left_alone(server: UploadServer) -> None:
    message = mb.UserMessage(
        content=[
            mb.ImageBlock.from_url("https://example.com/cat.png"),
            mb.FileBlock.from_file_id("file_9", provider="anthropic"),
        ]
    )
    out = mb.upload([message], "anthropic", _anthropic(server))
    assert server.received == []
    assert out[0] is message


async def test_aupload_openai_and_anthropic(server: UploadServer) -> None:
    png, pdf = make_png(), make_pdf()
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(png), mb.FileBlock.from_bytes(pdf)])
    out = await mb.aupload([message], "openai-responses", _openai(server, asynchronous=True))
    assert sorted(data for _, data, _ in server.received) == sorted([png, pdf])
    assert all(isinstance(s, FileIdSource) for s in _sources(out))
    out = await mb.aupload([message], "anthropic", _anthropic(server, asynchronous=True))
    assert server.apis().count("anthropic") == 2
    assert mb.encode(out, "anthropic")["messages"][0]["content"][0]["source"]["type"] == "file"


async def test_aupload_gemini_and_s3(server: UploadServer, monkeypatch: pytest.MonkeyPatch) -> None:
    png = make_png()
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(png)])
    out = await mb.aupload([message], "gemini", _gemini(server))
    assert [d for api, d, _ in server.received if api == "gemini"] == [png]
    assert "/files/" in _sources(out)[0].file_id
    out = await mb.aupload([message], "bedrock", _s3(server, monkeypatch), bucket="b")
    assert server.received[-1][1] == png
    assert _sources(out)[0].file_id.startswith("s3://b/")


async def test_aupload_error_is_upload_error(server: UploadServer) -> None:
    server.fail_next = 1
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    with pytest.raises(mb.UploadError):
        await mb.aupload([message], "openai-responses", _openai(server, asynchronous=True))


def _distinct_pngs(count: int) -> list[bytes]:
    return [make_png((8 + n, 8), color=(n * 20, 0, 0)) for n in range(count)]


def test_concurrent_threads_upload_each_content_once(server: UploadServer, tmp_path: Path) -> None:
    import threading

    server.delay = 0.05  # uploads overlap: the callers really are concurrent
    pngs = _distinct_pngs(10)
    cache = mb.DirectoryUploadCache(tmp_path)
    client = _openai(server)
    got: dict[int, str] = {}
    errors: list[BaseException] = []

    def call(n: int) -> None:
        message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(pngs[n % 10])])
        try:
            out = mb.upload([message], "openai-responses", client, cache=cache)
            got[n] = _sources(out)[0].file_id
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(data for _, data, _ in server.received) == sorted(pngs)
    for n in range(50):  # every caller holding the same bytes got the same file id
        assert got[n] == got[n % 10]
    assert len(set(got.values())) == 10


async def test_concurrent_tasks_upload_each_content_once(server: UploadServer) -> None:
    import asyncio

    server.delay = 0.05
    pngs = _distinct_pngs(10)
    client = _anthropic(server, asynchronous=True)
    messages = [mb.UserMessage(content=[mb.ImageBlock.from_bytes(pngs[n % 10])]) for n in range(50)]
    outs = await asyncio.gather(*(mb.aupload([m], "anthropic", client) for m in messages))
    assert sorted(data for _, data, _ in server.received) == sorted(pngs)
    ids = [_sources(out)[0].file_id for out in outs]
    assert all(ids[n] == ids[n % 10] for n in range(50))


@pytest.mark.parametrize("provider", ["openai-responses", "anthropic", "gemini", "bedrock"])
def test_a_file_deleted_at_the_provider_is_uploaded_again(
    provider: str, server: UploadServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clients = {
        "openai-responses": lambda: _openai(server),
        "anthropic": lambda: _anthropic(server),
        "gemini": lambda: _gemini(server),
        "bedrock": lambda: _s3(server, monkeypatch),
    }
    client = clients[provider]()
    cache = mb.DirectoryUploadCache(tmp_path)
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    uploads = len(server.received)

    def call(**options: Any) -> str:
        out = mb.upload([message], provider, client, cache=cache, bucket="b", **options)
        return str(_sources(out)[0].file_id)

    first = call()
    assert call() == first  # checked at the provider, still there: reused
    assert server.checks
    server.delete(first)
    assert call(verify=False) == first  # trusting the cache sends the dead reference
    second = call()
    uploaded = [api for api in server.apis() if not api.endswith("-get")]
    assert len(uploaded) == uploads + 2  # deleted, so uploaded again
    assert call() == second
    if provider != "bedrock":  # S3 keys are content-addressed: the same key again
        assert second != first


async def test_aupload_uploads_a_deleted_file_again(server: UploadServer) -> None:
    client = _openai(server, asynchronous=True)
    cache = mb.MemoryUploadCache()
    message = mb.UserMessage(content=[mb.FileBlock.from_bytes(make_pdf())])
    first = _sources(await mb.aupload([message], "openai-responses", client, cache=cache))
    server.delete(first[0].file_id)
    second = _sources(await mb.aupload([message], "openai-responses", client, cache=cache))
    assert second[0].file_id != first[0].file_id
    assert len(server.received) == 2


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("wait", float("nan")),
        ("wait", float("inf")),
        ("wait", -1),
        ("wait", "10"),
        ("min_bytes", -1),
        ("min_bytes", True),
        ("min_bytes", 1.5),
        ("verify", "yes"),
        ("bucket", ""),
        ("prefix", None),
        ("account", 3),
        ("cache", object()),
    ],
)
def test_bad_options_are_invalid_option_errors(option: str, value: Any) -> None:
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    with pytest.raises(mb.InvalidOptionError, match=option):
        mb.upload([message], "anthropic", object(), **{option: value})


async def test_aupload_concurrency_is_checked() -> None:
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    for bad in (0, True, 2.5):
        with pytest.raises(mb.InvalidOptionError, match="concurrency"):
            await mb.aupload([message], "anthropic", object(), concurrency=bad)  # type: ignore[arg-type]


def test_a_cache_that_cannot_store_does_not_lose_the_upload(server: UploadServer) -> None:
    class Full(mb.MemoryUploadCache):
        def put(self, key: str, reference: str, expires_at: float | None = None) -> None:
            raise mb.SourceError("disk full")

    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    with pytest.warns(UserWarning, match="disk full"):
        out = mb.upload([message], "anthropic", _anthropic(server), cache=Full())
    assert _sources(out)[0].file_id == "file_0001"


async def test_a_misspelt_keyword_is_a_type_error_naming_it() -> None:
    """The options are one TypedDict (`UploadKeywords`); unknown ones are refused as Python
    refuses any unknown keyword, before a block is read; an `Uploader` takes the same ones."""
    message = mb.UserMessage(content=[mb.ImageBlock.from_bytes(make_png())])
    with pytest.raises(TypeError, match=r"upload\(\) got an unexpected keyword argument 'bukket'"):
        mb.upload([message], "bedrock", object(), bukket="b")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"aupload\(\) got an unexpected keyword argument 'waits'"):
        await mb.aupload([message], "anthropic", object(), waits=3)  # type: ignore[call-arg]
    from mediablocks.uploading import UploadKeywords

    every = set(UploadKeywords.__annotations__)
    assert "cache" in every
    assert "concurrency" not in every
    mb.Uploader(object(), options=dict.fromkeys(every - {"cache"}))  # each one is taken
    with pytest.raises(mb.InvalidOptionError, match="cache"):
        mb.Uploader(object(), options={"cache": None})  # the cache is the Uploader's own field
