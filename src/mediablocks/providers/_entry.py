"""What one registry entry says: a `Provider`, its `Capabilities` and, for an entry that reuses
another provider's package, its `Profile`; and how an entry finds its parts.

`mediablocks.providers.registry` holds the entries themselves and the lookups over them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from ..limits import ProviderLimits
from ._formula import TokenFormula

if TYPE_CHECKING:  # only for annotations: importing them here would make a cycle
    from ._fold import Folder

__all__ = ["Capabilities", "Profile", "Provider"]

_PACKAGE = __name__.rsplit(".", 1)[0]
"""The package whose subpackages hold each provider's parts."""


@dataclass(frozen=True)
class Capabilities:
    """What a provider carries, in the words of the capability matrix in ``docs/providers.md``.

    Each field is short prose; "—" means the provider does not take it (encode raises).
    """

    images: str
    audio: str
    video: str
    documents: str
    tool_result_media: str
    url_media: str
    thinking: str


@dataclass(frozen=True)
class Profile:
    """How an entry differs from the provider whose package it reuses.

    ``base`` is that provider's canonical name; ``differences`` are the documented differences
    (``{"reasoning field": "reasoning_content"}``), shown in the docs and read by the translator;
    ``parts`` maps a part (``"limits"``, ``"tokens"``, ``"stream"``...) to the package under
    ``mediablocks.providers`` that has this entry's own version of it.
    """

    base: str
    differences: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    parts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    video_url: bool = False
    """Video goes out as ``video_url`` parts (vLLM, OpenRouter; OpenAI Chat's base only)."""
    fetches_urls: bool = True
    """False: the endpoint fetches no URL, so URL media is downloaded and inlined by default."""
    tool_result_media: str = "user_message"
    """What `encode` does by default with media in tool results the tool channel refuses:
    ``user_message`` moves it to a user message after the results, ``error`` refuses it."""


@dataclass(frozen=True)
class Provider:
    """One provider (one wire format, or a profile over another's)."""

    name: str
    """Canonical name, as `mb.encode` takes it (``"openai-chat"``)."""
    title: str
    """What the docs call it (``"OpenAI Chat Completions"``)."""
    aliases: tuple[str, ...]
    """Other names `mb.encode` takes for it, lower case with ``-`` (``"openai"``)."""
    sdk_call: str
    """The official SDK call `encode`'s fields are for."""
    package: str
    """The package under ``mediablocks.providers`` holding its parts (``"openai_chat"``)."""
    encoder: str
    """The encode function in ``<package>.translate`` (``"to_openai_chat"``)."""
    decoder: str
    """The decode function in ``<package>.translate`` (``"from_openai_chat"``)."""
    folder: str
    """The stream fold class in ``<package>.stream`` (``"OpenAIChatFolder"``)."""
    sniff: Callable[[Any], bool]
    """True when a payload carries something only this wire format has (see ``_sniff``)."""
    capabilities: Capabilities
    docs_page: str
    """The provider's page under ``docs/providers/``."""
    profile: Profile | None = None
    declared_limits: ProviderLimits | None = field(default=None, compare=False)
    """A profile declared at run time (`mb.register_profile`) carries its limits here."""

    def part(self, name: str) -> ModuleType:
        """The provider's ``translate``, ``stream``, ``limits`` or ``tokens`` module."""
        package = self.package
        if self.profile is not None:
            package = self.profile.parts.get(name, package)
        return importlib.import_module(f"{_PACKAGE}.{package}.{name}")

    def new_folder(self) -> Folder:
        """A fresh stream fold for this provider."""
        folder: Folder = getattr(self.part("stream"), self.folder)()
        return folder

    def limits(self) -> ProviderLimits:
        """The provider's limits (``<package>.limits.LIMITS``, or the declared ones)."""
        if self.declared_limits is not None:
            return self.declared_limits
        limits: ProviderLimits = self.part("limits").LIMITS
        if limits.provider != self.name:
            limits = replace(limits, provider=self.name)
        return limits

    def limits_for_model(self, limits: ProviderLimits, model: str) -> ProviderLimits:
        """``limits`` for one model: the provider's ``for_model`` rule, or the same numbers."""
        if self.declared_limits is not None:
            return replace(limits, model=model)
        rule = getattr(self.part("limits"), "for_model", None)
        if rule is None:
            return replace(limits, model=model)
        tuned: ProviderLimits = rule(limits, model)
        return tuned

    def assumed_model(self) -> str | None:
        """The model `prepare` fits to when none is given: the provider's most restrictive
        current model where its models take different media (``<package>.limits.ASSUMED_MODEL``),
        else None (every model takes the same)."""
        assumed: str | None = getattr(self.part("limits"), "ASSUMED_MODEL", None)
        return assumed

    def token_formula(self) -> TokenFormula:
        """The provider's token formula (``<package>.tokens.FORMULA``)."""
        formula: TokenFormula = self.part("tokens").FORMULA
        return formula
