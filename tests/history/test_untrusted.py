"""A loaded history (or decoded payload) is untrusted: the paths and URLs it names are kept, and
written back as they came, but never read or fetched unless the caller allowed it."""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.sources import PathSource, URLSource
from tests.conftest import make_png, serve

PNG = make_png((3, 3))


def _history(source: dict[str, Any], kind: str = "image") -> str:
    message = {"role": "user", "content": [{"type": kind, "source": source}]}
    return json.dumps([message])


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret" / "passwd.png"
    path.parent.mkdir()
    path.write_bytes(PNG)
    return path


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every socket opened is recorded and refused."""
    opened: list[tuple[Any, ...]] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        opened.append(args)
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return opened


# -- paths ----------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "gemini", "bedrock", "ollama"])
def test_a_loaded_path_is_not_sent_without_an_allow(secret: Path, provider: str) -> None:
    [message] = mb.load_messages(_history({"kind": "path", "path": str(secret)}))
    block = message.content[0]
    assert isinstance(block, mb.ImageBlock)
    assert isinstance(block.source, PathSource)
    assert block.source.loaded_from == "a loaded history"
    with pytest.raises(mb.PathNotAllowedError, match="allow_paths") as caught:
        mb.encode([message], provider)
    assert "passwd.png" in str(caught.value)
    assert not block.loaded


def test_allow_paths_reads_under_the_folders_given_and_nowhere_else(
    secret: Path, tmp_path: Path
) -> None:
    allowed = tmp_path / "media"
    allowed.mkdir()
    (allowed / "cat.png").write_bytes(PNG)
    (allowed / "escape.png").symlink_to(secret)
    text = json.dumps(
        [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"kind": "path", "path": str(allowed / name)}}
                    for name in ("cat.png", "escape.png")
                ],
            }
        ]
    )
    [message] = mb.load_messages(text, allow_paths=[allowed])
    inside, escape = message.content
    assert isinstance(inside, mb.ImageBlock)
    assert isinstance(escape, mb.ImageBlock)
    assert inside.read() == PNG
    with pytest.raises(mb.PathNotAllowedError, match="outside the allowed roots"):
        escape.read()
    [other] = mb.load_messages(_history({"kind": "path", "path": str(secret)}), allow_paths=allowed)
    with pytest.raises(mb.PathNotAllowedError):
        other.content[0].read()  # type: ignore[union-attr]


def test_a_read_policy_with_roots_allows_a_loaded_path(secret: Path) -> None:
    [message] = mb.load_messages(_history({"kind": "path", "path": str(secret)}))
    block = message.content[0]
    assert isinstance(block, mb.ImageBlock)
    with pytest.raises(mb.PathNotAllowedError):
        block.read(mb.FetchPolicy())  # a policy without roots allows no loaded path
    roots = mb.FetchPolicy(allowed_roots=[str(secret.parent)])
    with mb.use_policy(roots):
        assert mb.encode([message], "anthropic")  # the scope's roots allow it
    assert block.read(roots) == PNG
    [again] = mb.load_messages(_history({"kind": "path", "path": str(secret)}))
    elsewhere = mb.FetchPolicy(allowed_roots=[str(secret.parent.parent / "other")])
    with pytest.raises(mb.PathNotAllowedError, match="outside the allowed roots"):
        again.content[0].read(elsewhere)  # type: ignore[union-attr]


def test_the_callers_own_paths_read_as_before(secret: Path) -> None:
    block = mb.ImageBlock.from_path(secret)
    assert isinstance(block.source, PathSource)
    assert block.source.loaded_from is None
    assert block.read() == PNG
    message = mb.UserMessage(
        content=[{"type": "image", "source": {"kind": "path", "path": str(secret)}}]
    )
    assert mb.encode([message], "anthropic")


def test_load_history_passes_the_allow_on_and_refuses_links_in_media_dir(
    secret: Path, tmp_path: Path
) -> None:
    text = _history({"kind": "path", "path": str(secret)})
    [refused] = mb.load_history(text)
    with pytest.raises(mb.PathNotAllowedError, match="to load_history"):
        refused.content[0].read()  # type: ignore[union-attr]
    [allowed] = mb.load_history(text, allow_paths=[secret.parent])
    assert allowed.content[0].read() == PNG  # type: ignore[union-attr]

    media = tmp_path / "media"
    saved = mb.save_history([mb.UserMessage.with_images("x", [PNG])], media_dir=media)
    [stored] = list(media.iterdir())
    stored.unlink()
    stored.symlink_to(secret)  # a planted link with the right name (and even the right hash)
    with pytest.raises(mb.PathNotAllowedError, match="media_dir"):
        mb.load_history(saved, media_dir=media)
    stored.unlink()
    os.mkfifo(stored)  # no writer ever comes: a blocking open would hang here
    with pytest.raises(mb.FileTooLargeError, match="FIFO"):
        mb.load_history(saved, media_dir=media)


# -- URLs -----------------------------------------------------------------------------------


def test_a_loaded_url_is_kept_as_a_url_and_never_fetched(no_network: list[Any]) -> None:
    text = _history({"kind": "url", "url": "http://169.254.169.254/latest/meta-data/x.png"})
    [message] = mb.load_messages(text)
    block = message.content[0]
    assert isinstance(block, mb.ImageBlock)
    assert isinstance(block.source, URLSource)
    encoded = mb.encode([message], "openai-chat")  # OpenAI fetches URLs itself: passed on
    assert "169.254.169.254" in json.dumps(encoded)
    with pytest.raises(mb.BlockedURLError, match=r"policy=FetchPolicy\(\.\.\.\) to load_messages"):
        mb.encode([message], "ollama")  # Ollama needs the bytes: refused, nothing connected
    with pytest.raises(mb.BlockedURLError, match="loaded history"):
        block.read()
    assert no_network == []


def test_a_policy_given_at_load_or_read_allows_fetching() -> None:
    with serve() as (base, handler):
        handler.routes["/cat.png"] = ("image/png", PNG)
        text = _history({"kind": "url", "url": base + "/cat.png"})
        loopback = mb.FetchPolicy(allow_private=True)
        [at_load] = mb.load_messages(text, policy=loopback)
        assert at_load.content[0].read() == PNG  # type: ignore[union-attr]
        [at_read] = mb.load_messages(text)
        assert mb.encode([at_read], "ollama", policy=loopback)
        [in_scope] = mb.load_messages(text)
        with mb.use_policy(loopback):
            assert in_scope.content[0].read() == PNG  # type: ignore[union-attr]
        assert handler.hits == ["/cat.png"] * 3


def test_decoded_payloads_keep_their_urls_unfetched_unless_allowed(no_network: list[Any]) -> None:
    url = "http://10.0.0.1/internal.png"
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}
        ],
    }
    for messages in (
        mb.decode(body, "openai-chat"),
        mb.decode_request(body, "openai-chat").messages,
        mb.decode(json.dumps(body), "openai-chat"),
    ):
        block = messages[0].content[0]
        assert isinstance(block.source, URLSource)  # type: ignore[union-attr]
        assert block.source.loaded_from.startswith("a decoded")  # type: ignore[union-attr]
        with pytest.raises(mb.BlockedURLError, match="came from a decoded"):
            mb.encode(messages, "ollama")
    response = {
        "id": "r",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "image", "source": {"type": "url", "url": url}}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    reply = mb.decode_response(response, "anthropic")
    with pytest.raises(mb.BlockedURLError, match="decode_response"):
        reply.content[0].read()  # type: ignore[union-attr]
    assert no_network == []
    allowed = mb.decode(body, "openai-chat", policy=mb.FetchPolicy())
    with pytest.raises(mb.BlockedURLError, match="private"):  # the policy given now decides
        allowed[0].content[0].read()  # type: ignore[union-attr]


def test_parse_blocks_from_text_is_loaded_input_and_from_dicts_is_yours(secret: Path) -> None:
    item = {"type": "image", "source": {"kind": "path", "path": str(secret)}}
    [from_text] = mb.parse_blocks(json.dumps([item]))
    with pytest.raises(mb.PathNotAllowedError):
        from_text.read()  # type: ignore[union-attr]
    [from_dicts] = mb.parse_blocks([item])
    assert from_dicts.read() == PNG  # type: ignore[union-attr]


def test_loaders_check_their_allow_options() -> None:
    with pytest.raises(mb.InvalidOptionError, match="allow_paths"):
        mb.load_messages("[]", allow_paths=[""])
    with pytest.raises(mb.InvalidOptionError, match="policy"):
        mb.load_messages("[]", policy="yes")  # type: ignore[arg-type]


# -- round trips stay lossless --------------------------------------------------------------


def test_dump_and_load_round_trip_every_source_exactly(secret: Path) -> None:
    blocks = [
        mb.ImageBlock.from_bytes(PNG),
        mb.ImageBlock.from_base64(mb.ImageBlock.from_bytes(PNG).to_base64()[0]),
        mb.ImageBlock.from_path(secret),
        mb.ImageBlock.from_url("https://example.com/cat.png"),
        mb.ImageBlock.from_file_id("file-123", "image/png", provider="openai"),
    ]
    history = [mb.UserMessage(content=blocks)]
    text = mb.dump_messages(history)
    loaded = mb.load_messages(text)
    assert mb.dump_messages(loaded) == text
    assert [b.source for b in loaded[0].content] == [b.source for b in blocks]  # type: ignore[union-attr]
    assert loaded[0].content[0].read() == PNG  # type: ignore[union-attr]  # bytes: as usual
    assert loaded[0].content[1].read() == PNG  # type: ignore[union-attr]


# -- property: loading arbitrary JSON never touches a file or the network -------------------

_TEXT = st.text(max_size=40)
_SOURCES = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.just("path"),
            "path": st.sampled_from(["/etc/passwd", "x.png", "/dev/zero", "."]) | _TEXT,
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("url"),
            "url": st.sampled_from(["http://127.0.0.1/a.png", "file:///etc/passwd", "https://x/y"])
            | _TEXT,
        }
    ),
    st.fixed_dictionaries(
        {"kind": st.just("bytes"), "data": st.sampled_from(["", "iVBORw0KGgo=", "!!"])}
    ),
    st.fixed_dictionaries({"kind": st.just("file_id"), "file_id": _TEXT}),
)
_BLOCKS = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["image", "audio", "video", "file"]), "source": _SOURCES}
    ),
    st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT}),
)
_MESSAGES = st.lists(
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["user", "assistant", "tool", "system", "human", "x"]),
            "content": st.lists(_BLOCKS, max_size=3),
        }
    ),
    max_size=3,
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


@given(
    document=st.one_of(
        _JSON,
        _MESSAGES,
        _MESSAGES.map(lambda m: {"format": "mediablocks.messages", "version": 1, "messages": m}),
    ),
    as_text=st.booleans(),
)
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_loading_any_json_opens_no_file_and_no_socket(
    monkeypatch: pytest.MonkeyPatch, document: Any, as_text: bool
) -> None:
    mb.encode([mb.UserMessage.text("warm")], "anthropic")  # lazy imports done before the guard

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"opened {args[:1]!r}")

    with monkeypatch.context() as patch:
        for target, name in ((os, "open"), (builtins, "open"), (io, "open"), (socket, "socket")):
            patch.setattr(target, name, refuse)
        patch.setattr(socket, "getaddrinfo", refuse)
        try:
            messages = mb.load_messages(json.dumps(document) if as_text else document)
        except mb.MediaBlocksError:
            return
        assert isinstance(messages, list)
        for provider in ("anthropic", "ollama"):
            with contextlib.suppress(mb.MediaBlocksError):
                mb.encode(messages, provider)


def test_load_history_reads_a_history_file_by_descriptor(tmp_path: Path) -> None:
    saved = tmp_path / "history.json"
    mb.save_history([mb.UserMessage.text("hello")], saved)
    assert mb.load_history(saved)[0].text == "hello"
    fifo = tmp_path / "history.fifo"
    os.mkfifo(fifo)  # no writer ever comes: a blocking open would hang here
    with pytest.raises(mb.FileTooLargeError, match="FIFO"):
        mb.load_history(fifo)
    (tmp_path / "latin.json").write_bytes(b'[{"role": "user", "content": "\xe9"}]')
    with pytest.raises(mb.DecodeError, match="not UTF-8"):
        mb.load_history(tmp_path / "latin.json")


def test_encode_policy_confines_the_type_peek_too(
    tmp_path: Path, secret: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``encode(..., policy=FetchPolicy(allowed_roots=...))`` is the scope of every read encode
    makes: a caller's path outside the roots is refused before any byte of it is read, even
    the header window the type comes from; a loaded path under the roots is allowed by it."""
    import os

    inside = tmp_path / "inside"
    inside.mkdir()
    opened: list[str] = []
    real_open = os.open

    def recording_open(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fsdecode(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording_open)
    block = mb.ImageBlock.from_path(secret)
    policy = mb.FetchPolicy(allowed_roots=[str(inside)])
    with pytest.raises(mb.PathNotAllowedError):
        mb.encode([mb.UserMessage(content=[block])], "anthropic", policy=policy)
    assert not [path for path in opened if path.endswith("passwd.png")]
    [message] = mb.load_messages(_history({"kind": "path", "path": str(secret)}))
    allowed = mb.FetchPolicy(allowed_roots=[str(secret.parent)])
    fields = mb.encode([message], "anthropic", policy=allowed)
    assert fields["messages"][0]["content"][0]["source"]["media_type"] == "image/png"
