"""The registry's entries: each part resolves, names agree, docs are generated from it."""

from __future__ import annotations

import importlib
from types import MappingProxyType

import pytest
from tests.conftest import ROOT

import mediablocks as mb
from mediablocks.encoding import encode
from mediablocks.limits import ProviderLimits
from mediablocks.providers import ALIASES, PROVIDERS, canonical_provider, translator
from mediablocks.providers._docs import BLOCKS, render
from mediablocks.providers._fold import Folder
from mediablocks.providers.registry import REGISTRY, Profile, Provider, limits_for, provider_entry
from mediablocks.tokens import TokenFormula

NAMES = [entry.name for entry in REGISTRY]


def test_the_registry_is_the_list_of_providers_and_aliases() -> None:
    assert tuple(NAMES) == PROVIDERS
    assert len(set(NAMES)) == len(NAMES)
    for entry in REGISTRY:
        for alias in entry.aliases:
            assert ALIASES[alias] == entry.name
            assert canonical_provider(alias.upper()) == entry.name
    with pytest.raises(mb.UnknownProviderError, match="unknown provider 'skynet'"):
        provider_entry("skynet")


@pytest.mark.parametrize("name", NAMES)
def test_every_part_of_an_entry_resolves(name: str) -> None:
    entry = provider_entry(name)
    translate = entry.part("translate")
    if entry.profile is None:  # a profile wraps its base's functions (see test_profiles.py)
        assert translator(name) == (
            getattr(translate, entry.encoder),
            getattr(translate, entry.decoder),
        )
    folder = entry.new_folder()
    assert isinstance(folder, Folder)
    assert folder.provider == (entry.profile.base if entry.profile else name)
    assert entry.new_folder() is not folder
    limits = entry.limits()
    assert isinstance(limits, ProviderLimits)
    assert limits.provider == name
    assert limits_for(name) == limits
    assert isinstance(entry.token_formula(), TokenFormula)
    assert (ROOT / "docs" / "providers" / entry.docs_page).is_file()


@pytest.mark.parametrize("name", NAMES)
def test_the_sniff_of_an_entry_recognises_its_own_requests(name: str) -> None:
    history = [
        mb.UserMessage.text("what is the weather?"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="call_1", name="weather", args={})]),
        mb.ToolMessage.from_result("call_1", "sunny", name="weather"),
    ]
    body = encode(history, name, target="json")
    entry = provider_entry(name)
    assert entry.sniff(body)
    assert not entry.sniff({"something": "else"})
    assert not entry.sniff([1, "x", None, {"role": 3}])


def test_a_profile_reuses_another_package_and_brings_its_own_parts() -> None:
    chat = provider_entry("openai-chat")
    profile = Profile(
        base="openai-chat",
        differences=MappingProxyType({"reasoning field": "reasoning_content"}),
        parts=MappingProxyType({"limits": "anthropic"}),
    )
    compatible = Provider(
        name="example-compatible",
        title="An OpenAI-compatible endpoint",
        aliases=(),
        sdk_call=chat.sdk_call,
        package=chat.package,
        encoder=chat.encoder,
        decoder=chat.decoder,
        folder=chat.folder,
        sniff=chat.sniff,
        capabilities=chat.capabilities,
        docs_page=chat.docs_page,
        profile=profile,
    )
    assert compatible.part("translate") is importlib.import_module(
        "mediablocks.providers.openai_chat.translate"
    )
    limits = compatible.limits()
    assert limits.provider == "example-compatible"
    assert limits.max_image_side == limits_for("anthropic").max_image_side
    assert compatible.limits_for_model(limits, "m").model == "m"


def test_docs_tables_are_generated_from_the_registry() -> None:
    page = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    for name in BLOCKS:
        assert f"<!-- generated: {name} -->" in page
    assert render(page) == page, "run: python -m mediablocks.providers._docs"
    matrix = BLOCKS["capability-matrix"]()
    header = matrix.splitlines()[0]
    assert header.count("|") - 1 <= 7  # seven columns fit a 1280 px page
    for entry in REGISTRY:
        assert f"| {entry.name} | {entry.capabilities.images} |" in matrix


def test_render_rewrites_a_stale_block() -> None:
    stale = "intro\n<!-- generated: capability-matrix -->\nold\n<!-- end generated -->\nend\n"
    fresh = render(stale)
    assert "old" not in fresh
    assert "| ollama | JPEG, PNG |" in fresh
    assert fresh.endswith("end\n")
