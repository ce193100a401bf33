"""Media stores (memory, folder) and the reference text the model quotes back."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.history.references import MAX_ARGUMENT, media_digests, reference_text
from tests.conftest import make_jpeg, make_png


@pytest.fixture(params=["memory", "directory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        return mb.MemoryMediaStore()
    return mb.DirectoryMediaStore(tmp_path / "store")


def test_put_get_find(store: Any) -> None:
    png, jpeg = make_png(), make_jpeg()
    digest = store.put(png)
    assert digest == hashlib.sha256(png).hexdigest()
    assert store.put(png) == digest  # idempotent
    assert store.get(digest) == png
    assert store.get(hashlib.sha256(jpeg).hexdigest()) is None
    other = store.put(jpeg)
    assert store.find(digest[:8]) == [digest]
    assert sorted(store.find(digest[:8]) + store.find(other[:8])) == sorted([digest, other])
    assert store.find("0123456789abcdef") == [] or store.find("0123456789abcdef")[0].startswith(
        "0123456789abcdef"
    )
    assert isinstance(store, mb.MediaStore)


@pytest.mark.parametrize("bad", ["", "abc", "G" * 64, "../" + "a" * 61, "A" * 64, 5])
def test_a_digest_that_is_not_hex_is_refused(store: Any, bad: Any) -> None:
    with pytest.raises(mb.InvalidOptionError):
        store.get(bad)


def test_a_prefix_shorter_than_eight_digits_is_refused(store: Any) -> None:
    with pytest.raises(mb.InvalidOptionError, match="8 to 64"):
        store.find("abc")


def test_a_file_changed_on_disk_is_never_handed_out(tmp_path: Path) -> None:
    store = mb.DirectoryMediaStore(tmp_path)
    digest = store.put(make_png())
    path = tmp_path / digest[:2] / digest
    path.write_bytes(b"not the image")
    with pytest.raises(mb.SourceError, match="changed on disk"):
        store.get(digest)


def test_a_link_in_the_store_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"password")
    digest = hashlib.sha256(b"password").hexdigest()
    folder = tmp_path / "store" / digest[:2]
    folder.mkdir(parents=True)
    os.symlink(secret, folder / digest)
    with pytest.raises(mb.SourceError, match="link"):
        mb.DirectoryMediaStore(tmp_path / "store").get(digest)


def test_a_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    data = make_png((64, 64))
    store = mb.DirectoryMediaStore(tmp_path, max_bytes=len(data) - 1)
    digest = store.put(data)
    with pytest.raises(mb.FileTooLargeError):
        store.get(digest)


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    store = mb.DirectoryMediaStore(tmp_path)
    digests = {store.put(make_png((8 + n, 8))) for n in range(5)}
    files = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    assert files == digests


def test_bad_store_options() -> None:
    with pytest.raises(mb.InvalidOptionError):
        mb.DirectoryMediaStore("x", max_bytes=0)
    with pytest.raises(mb.InvalidOptionError):
        mb.MemoryMediaStore().put("text")  # type: ignore[arg-type]


def test_reference_texts() -> None:
    digest = "3f9a0c51d2e4b7a8" + "0" * 48
    assert (
        reference_text("image", digest, tool_call_id="c7", message=3, stored=True)
        == "[image sha256:3f9a0c51d2e4b7a8… from tool call c7, stored]"
    )
    assert (
        reference_text("file", digest, tool_call_id=None, message=3, stored=False, thumbnail=True)
        == "[thumbnail of document sha256:3f9a0c51d2e4b7a8… from message 3, not stored]"
    )
    assert (
        reference_text("image", None, tool_call_id="a]\nb", message=0, stored=False, removed=True)
        == "[image from tool call a__b removed]"
    )


def test_view_media_tool_definition_encodes_for_providers() -> None:
    tool = mb.view_media_tool()
    assert tool.name == "view_media"
    assert tool.parameters["required"] == ["ref"]
    body = mb.encode([mb.UserMessage.text("hi")], "anthropic", tools=[tool])
    assert body["tools"][0]["name"] == "view_media"


def test_view_media_with_an_ambiguous_prefix_is_an_error_result() -> None:
    class Twins(mb.MemoryMediaStore):
        def find(self, prefix: str) -> list[str]:
            return ["a" * 64, "a" * 63 + "b"]

    answer = mb.view_media("sha256:aaaaaaaa", Twins(), tool_call_id="v")
    assert answer.is_error
    assert "2 stored media" in str(answer.content)
    with pytest.raises(mb.InvalidOptionError):
        mb.view_media("sha256:aaaaaaaa", Twins(), tool_call_id="")


def test_view_media_refuses_a_store_that_lies() -> None:
    class Liar(mb.MemoryMediaStore):
        def get(self, digest: str) -> bytes | None:
            return b"something else"

    store = Liar()
    digest = store.put(make_png())
    with pytest.raises(mb.SourceError):
        mb.view_media(digest, store, tool_call_id="v")


@given(st.text(max_size=300), st.lists(st.binary(max_size=20), max_size=4))
def test_media_digests_finds_every_quoted_hash_and_nothing_else(
    noise: str, contents: list[bytes]
) -> None:
    digests = [hashlib.sha256(c).hexdigest() for c in contents]
    text = noise.replace(":", "") + "".join(f" [image sha256:{d[:16]}…] " for d in digests)
    found = media_digests(text)
    unique = list(dict.fromkeys(d[:16] for d in digests))
    if len(text) <= MAX_ARGUMENT:
        assert found == unique


@given(st.text(max_size=2 * MAX_ARGUMENT))
def test_view_media_answers_any_argument_without_raising(argument: str) -> None:
    store = mb.MemoryMediaStore()
    store.put(make_png())
    answer = mb.view_media(argument, store, tool_call_id="v")
    assert answer.tool_call_id == "v"
    assert answer.is_error or isinstance(answer.content, list)
