"""Private attributes set up in one step (`mediablocks._private_setup`) hold what pydantic's own
setup gives them: for the library's sources and media blocks, and for subclasses of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import PrivateAttr

import mediablocks as mb
from mediablocks.sources import Base64Source, BytesSource, FileIdSource, PathSource, URLSource
from mediablocks.sources._trust import loading

PNG = b"\x89PNG\r\n\x1a\n" + bytes(40)


def _pydantic_defaults(model: Any) -> dict[str, Any]:
    """What pydantic's generic setup would give ``model`` (factories called afresh)."""
    return {
        name: attribute.get_default(call_default_factory=True)
        for name, attribute in type(model).__private_attributes__.items()
    }


def _same_but_fresh(model: Any, expected: dict[str, Any]) -> None:
    private = model.__pydantic_private__
    assert private.keys() == expected.keys()
    attributes = type(model).__private_attributes__
    for name, value in expected.items():
        if attributes[name].default_factory is not None:  # the lock: a fresh one of its kind
            assert type(private[name]) is type(value), name
        else:
            assert private[name] == value, name


def test_every_source_kind_has_the_private_attributes_pydantic_would_give() -> None:
    sources: list[Any] = [
        BytesSource(data=PNG),
        Base64Source(data="iVBORw0KGgo="),
        PathSource(path="x.png"),
        URLSource(url="https://example.com/x.png"),
        FileIdSource(file_id="file-1"),
    ]
    for source in sources:
        expected = _pydantic_defaults(source)
        # The per-instance setup ran after the defaults: caches hold what the source was given.
        if isinstance(source, BytesSource):
            expected["_data"] = PNG
        if isinstance(source, Base64Source):
            expected["_base64"] = "iVBORw0KGgo="
        _same_but_fresh(source, expected)
    first, second = BytesSource(data=PNG), BytesSource(data=PNG)
    assert first._lock is not second._lock  # a factory is called for each instance


def test_sources_and_blocks_loaded_from_json_are_set_up_alike() -> None:
    blocks = [mb.ImageBlock.from_bytes(PNG), mb.AudioBlock.from_url("https://x/a.mp3")]
    text = mb.dump_messages([mb.UserMessage(content=blocks)])
    image, audio = mb.load_messages(text)[0].content
    assert image.source._data == PNG
    assert image.source.read() == PNG
    assert image.__pydantic_private__.keys() == {"_mime"}
    assert image.mime_type == "image/png"
    assert audio.source.loaded_from == "a loaded history"  # the allowance was taken at load
    assert mb.dump_messages(mb.load_messages(text)) == text


def test_a_path_source_built_while_loading_remembers_it() -> None:
    with loading("a loaded history", "load_messages", allow_paths=[str(Path.cwd())]):
        source = PathSource(path="x.png")
    assert source.loaded_from == "a loaded history"
    assert PathSource(path="x.png").loaded_from is None


def test_a_subclass_with_its_own_post_init_keeps_it_and_pydantic_setup() -> None:
    calls: list[str] = []

    class Tagged(mb.ImageBlock):
        _tags: list[str] = PrivateAttr(default_factory=list)

        def model_post_init(self, context: Any, /) -> None:
            calls.append("own")

    block = Tagged(source=BytesSource(data=PNG))
    assert calls == ["own"]
    assert block._tags == []
    assert block._mime is None


def test_a_subclass_with_a_default_to_copy_gets_its_own_copy() -> None:
    class Noted(BytesSource):
        _notes: list[str] = PrivateAttr(default=["kept"])

    first, second = Noted(data=PNG), Noted(data=PNG)
    first._notes.append("changed")
    assert second._notes == ["kept"]  # deep-copied per instance, as pydantic does
    assert first._data == PNG  # the parent's per-instance setup still ran
