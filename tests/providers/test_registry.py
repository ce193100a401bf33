"""The provider registry: names, aliases, lazy imports, options and the public encode/decode."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import mediablocks as mb
from mediablocks import providers
from mediablocks.encoding import encode
from mediablocks.errors import DecodeError, MediaBlocksError, UnknownProviderError
from mediablocks.providers import (
    PROVIDERS,
    TRANSLATORS,
    EncodeOptions,
    InvalidOptionError,
    decode,
    translator,
)
from mediablocks.providers.registry import provider_entry

PACKAGE = Path(providers.__file__).parent


def _available(name: str) -> bool:
    module = TRANSLATORS[name][0]
    return importlib.util.find_spec(f"mediablocks.providers.{module}") is not None


AVAILABLE = [name for name in PROVIDERS if _available(name)]


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[str, str, str]]:
    """A registry table and cache the test may change; both are restored afterwards."""
    table = dict(TRANSLATORS)
    monkeypatch.setattr(providers, "TRANSLATORS", table)
    monkeypatch.setattr(providers, "_loaded", {})
    return table


def test_every_provider_has_a_translator_entry_named_by_the_plan() -> None:
    assert set(TRANSLATORS) == set(PROVIDERS)
    for name, (module, to_name, from_name) in TRANSLATORS.items():
        if provider_entry(name).profile is not None:
            continue  # a profile names its base's package, or its own (test_profiles.py)
        assert module == name.replace("-", "_")
        assert (to_name, from_name) == (f"to_{module}", f"from_{module}")


@pytest.mark.parametrize("name", AVAILABLE)
def test_available_translators_resolve_to_their_module_functions(name: str) -> None:
    module_name, to_name, from_name = TRANSLATORS[name]
    module = importlib.import_module(f"mediablocks.providers.{module_name}")
    functions = (getattr(module, to_name), getattr(module, from_name))
    if provider_entry(name).profile is None:
        assert translator(name) == functions
    else:  # wrapped: the same encoding for what the endpoint takes
        history = [mb.UserMessage.text("hi")]
        assert translator(name)[0](history, None) == functions[0](history, None)


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("openai", "openai-chat"),
        ("OpenAI", "openai-chat"),
        ("openai_chat", "openai-chat"),
        (" openai-chat ", "openai-chat"),
        ("google", "gemini"),
        ("aws-bedrock", "bedrock"),
    ],
)
def test_aliases_reach_the_same_translator(alias: str, canonical: str) -> None:
    if canonical not in AVAILABLE:
        pytest.skip(f"the {canonical} translator is not written yet")
    assert translator(alias) is translator(canonical)


def test_unknown_providers_raise_naming_the_known_ones() -> None:
    with pytest.raises(UnknownProviderError, match=r"unknown provider 'nonesuch'.*openai-chat"):
        encode([mb.UserMessage.text("hi")], "nonesuch")
    with pytest.raises(UnknownProviderError):
        decode({}, "nonesuch")
    with pytest.raises(ValueError, match=r"unknown provider ''"):  # the builtin callers catch
        translator("")


def test_a_missing_translator_only_affects_its_own_provider(
    fresh_registry: dict[str, tuple[str, str, str]],
) -> None:
    fresh_registry["gemini"] = ("_no_such_translator", "to_x", "from_x")
    with pytest.raises(UnknownProviderError, match=r"gemini translator.*not part of"):
        encode([mb.UserMessage.text("hi")], "gemini")
    out = encode([mb.UserMessage.text("hi")], "openai")
    assert out == {"messages": [{"role": "user", "content": "hi"}]}


def test_a_broken_translator_raises_its_own_error_and_others_still_work(
    fresh_registry: dict[str, tuple[str, str, str]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    (tmp_path / "_broken_fixture.py").write_text("import mediablocks_no_such_dependency\n")
    monkeypatch.setattr(providers, "__path__", [*providers.__path__, str(tmp_path)])
    fresh_registry["ollama"] = ("_broken_fixture", "to_x", "from_x")
    with pytest.raises(ModuleNotFoundError, match=r"mediablocks_no_such_dependency"):
        translator("ollama")
    assert translator("openai")[0]([mb.UserMessage.text("ok")], EncodeOptions()) == {
        "messages": [{"role": "user", "content": "ok"}]
    }


def test_a_module_without_the_planned_functions_is_reported(
    fresh_registry: dict[str, tuple[str, str, str]],
) -> None:
    fresh_registry["mistral"] = ("_options", "to_mistral", "from_mistral")
    with pytest.raises(UnknownProviderError, match=r"lacks to_mistral\(\) or from_mistral\(\)"):
        translator("mistral")


# -- encode -----------------------------------------------------------------------------------


def test_encode_takes_one_message_a_list_a_tuple_or_mediablocks_dicts() -> None:
    expected = {"messages": [{"role": "user", "content": "hi"}]}
    assert encode(mb.UserMessage.text("hi"), "openai") == expected
    assert encode((mb.UserMessage.text("hi"),), "openai") == expected
    assert encode([{"role": "user", "content": "hi"}], "openai") == expected
    assert encode({"role": "human", "content": "hi"}, "openai") == expected


@pytest.mark.parametrize(
    ("messages", "match"),
    [
        (b"hi", r"not a bytes"),
        ([mb.UserMessage.text("a"), 3], r"message 1 is a int"),
        ([{"role": "user", "content": [{"type": "image_url"}]}], r"block 0 is not a mediablocks"),
    ],
)
def test_encode_refuses_what_is_not_a_message(messages: Any, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        encode(messages, "openai")


def test_encode_passes_every_option_to_the_translator() -> None:
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[mb.ThinkingBlock(thinking="hmm"), mb.TextBlock(text="a")]),
    ]
    assert encode(history, "openai")["messages"][1]["content"] == "a"
    with_text = encode(history, "openai", thinking="text")["messages"][1]["content"]
    assert with_text[0] == {"type": "text", "text": "hmm"}
    url_image = mb.ImageBlock.from_url("https://example.com/a.png")
    with pytest.raises(mb.UnsupportedBlockError, match=r"cannot fetch"):
        encode(
            mb.UserMessage(content=[mb.AudioBlock.from_url("https://e.com/a.wav")]),
            "openai",
            url_media="url",
        )
    part = encode(mb.UserMessage(content=[url_image]), "openai")["messages"][0]["content"][0]
    assert part["image_url"]["url"] == "https://example.com/a.png"


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"target": "xml"}, r"target='xml' is not one of 'sdk', 'json'"),
        ({"url_media": "never"}, r"url_media='never'"),
        ({"thinking": "keep"}, r"thinking='keep'"),
        ({"tool_result_media": "drop"}, r"tool_result_media='drop'"),
        ({"policy": {"allow_private": True}}, r"policy must be a FetchPolicy"),
    ],
)
def test_invalid_options_raise_invalid_option_error(options: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidOptionError, match=match) as caught:
        encode([mb.UserMessage.text("hi")], "openai", **options)
    assert isinstance(caught.value, MediaBlocksError)
    assert isinstance(caught.value, ValueError)


# -- decode -----------------------------------------------------------------------------------


def test_decode_reads_json_text_and_bytes_as_well_as_objects() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
    for payload in (body, json.dumps(body), json.dumps(body).encode()):
        (message,) = decode(payload, "openai")
        assert isinstance(message, mb.UserMessage)
        assert message.text == "hi"


def test_decode_of_broken_json_says_so() -> None:
    with pytest.raises(DecodeError, match=r"openai-chat payload is not JSON"):
        decode('{"messages": [', "openai")


@pytest.mark.parametrize("name", AVAILABLE)
def test_decode_inverts_encode_for_text_through_every_available_translator(name: str) -> None:
    history = [mb.UserMessage.text("hello"), mb.AssistantMessage.text("hi there")]
    back = decode(encode(history, name), name)
    assert [(m.role, m.text) for m in back] == [("user", "hello"), ("assistant", "hi there")]
    assert isinstance(back[1], mb.AssistantMessage)
    assert back[1].provider == name
