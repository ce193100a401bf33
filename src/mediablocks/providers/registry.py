"""Every provider mediablocks speaks, as one plain object each: names, SDK call, parts, facts.

A `Provider` entry names the package under ``mediablocks.providers`` that holds the provider's
parts (``translate``, ``stream``, ``limits``, ``tokens`` modules) and states the facts the docs'
capability matrix shows. Nothing here imports a provider package: each part is imported on first
use, so ``import mediablocks`` stays free of them and a broken provider only breaks itself.

An entry whose wire format is another provider's (an OpenAI-compatible endpoint, Anthropic over
Bedrock) points ``package`` at that provider's package for the parts it shares and lists what
differs in a `Profile`; a part it has of its own (its limits, say) goes in its own package, named
by the profile's ``parts``. ``docs/adding-a-provider.md`` walks through both kinds.
"""

from __future__ import annotations

import threading
from types import MappingProxyType, ModuleType

from ..errors import UnknownProviderError, UnsupportedSettingError
from ..limits import ProviderLimits
from . import _sniff
from ._entry import Capabilities, Profile, Provider

__all__ = [
    "ALIASES",
    "PROVIDERS",
    "REGISTRY",
    "WIRE_FORMATS",
    "Capabilities",
    "Profile",
    "Provider",
    "all_entries",
    "canonical_provider",
    "declare",
    "forget",
    "limits_for",
    "provider_entry",
    "request_module",
    "request_part",
]

_NONE = "—"
_OWN_REQUEST = frozenset({"deepseek", "xai"})
"""OpenAI-compatible endpoints whose request fields differ from OpenAI's (their ``request``)."""


def _openai_compatible(
    name: str,
    title: str,
    aliases: tuple[str, ...],
    package: str,
    differences: dict[str, str],
    images: str,
    audio: str,
    documents: str,
    video: str = "—",
) -> Provider:
    """An OpenAI-compatible endpoint: OpenAI Chat's translator, fold and token rule; its own
    limits (``<package>.limits``) and documented differences. With ``video`` (its video types)
    video goes out as ``video_url`` parts."""
    return Provider(
        name=name,
        title=title,
        aliases=aliases,
        sdk_call="openai.OpenAI(base_url=...).chat.completions.create(model=..., **fields)",
        package="openai_chat",
        encoder="to_openai_chat",
        decoder="from_openai_chat",
        folder="OpenAIChatFolder",
        sniff=_sniff.openai_chat,
        capabilities=Capabilities(
            images=images,
            audio=audio,
            video=video if video == _NONE else f"{video} (`video_url`)",
            documents=documents,
            tool_result_media="moved to a user message¹",
            url_media=(
                "images and video: the URL; others inlined"
                if video != _NONE
                else "images: the URL; others inlined"
            ),
            thinking="`reasoning_content` / `reasoning` read, sent back to its endpoint",
        ),
        docs_page="openai-compatible.md",
        profile=Profile(
            base="openai-chat",
            differences=MappingProxyType(differences),
            parts=MappingProxyType(
                {"limits": package, **({"request": package} if package in _OWN_REQUEST else {})}
            ),
            video_url=video != _NONE,
        ),
    )


REGISTRY: tuple[Provider, ...] = (
    Provider(
        name="openai-chat",
        title="OpenAI Chat",
        aliases=("openai", "openai-chat-completions", "openai-completions"),
        sdk_call="client.chat.completions.create(model=..., **fields)",
        package="openai_chat",
        encoder="to_openai_chat",
        decoder="from_openai_chat",
        folder="OpenAIChatFolder",
        sniff=_sniff.openai_chat,
        capabilities=Capabilities(
            images="PNG, JPEG, WebP, GIF",
            audio="WAV, MP3",
            video=_NONE,
            documents="PDF",
            tool_result_media="moved to a user message¹",
            url_media="images: the URL; others inlined",
            thinking="— (dropped or sent as text)",
        ),
        docs_page="openai-chat.md",
    ),
    Provider(
        name="openai-responses",
        title="OpenAI Responses",
        aliases=("responses",),
        sdk_call="client.responses.create(model=..., **fields)",
        package="openai_responses",
        encoder="to_openai_responses",
        decoder="from_openai_responses",
        folder="OpenAIResponsesFolder",
        sniff=_sniff.openai_responses,
        capabilities=Capabilities(
            images="PNG, JPEG, WebP, GIF",
            audio=_NONE,
            video=_NONE,
            documents="files (`input_file`)",
            tool_result_media="native",
            url_media="the URL",
            thinking="reasoning items, with id and `encrypted_content`",
        ),
        docs_page="openai-responses.md",
    ),
    Provider(
        name="anthropic",
        title="Anthropic",
        aliases=(),
        sdk_call="client.messages.create(model=..., max_tokens=..., **fields)",
        package="anthropic",
        encoder="to_anthropic",
        decoder="from_anthropic",
        folder="AnthropicFolder",
        sniff=_sniff.anthropic,
        capabilities=Capabilities(
            images="JPEG, PNG, GIF, WebP",
            audio=_NONE,
            video=_NONE,
            documents="PDF, plain text",
            tool_result_media="native (images, documents)",
            url_media="images and PDFs: the URL",
            thinking="`thinking` with signature, `redacted_thinking`",
        ),
        docs_page="anthropic.md",
    ),
    Provider(
        name="gemini",
        title="Gemini",
        aliases=("google", "google-genai"),
        sdk_call="client.models.generate_content(model=..., **fields)",
        package="gemini",
        encoder="to_gemini",
        decoder="from_gemini",
        folder="GeminiFolder",
        sniff=_sniff.gemini,
        capabilities=Capabilities(
            images="PNG, JPEG, WebP, HEIC, HEIF",
            audio="WAV, MP3, AIFF, AAC, Ogg, FLAC",
            video="MP4, MPEG, MOV, AVI, FLV, WebM, WMV, 3GPP",
            documents="PDF, `text/*`",
            tool_result_media="native on Gemini 3 (images, PDF, text)",
            url_media="File API, `gs://` and YouTube URIs as `file_data`; others inlined",
            thinking="thought parts; `thought_signature` on the part that carried it",
        ),
        docs_page="gemini.md",
    ),
    Provider(
        name="bedrock",
        title="Bedrock Converse",
        aliases=("bedrock-converse", "aws-bedrock"),
        sdk_call="bedrock_runtime.converse(modelId=..., **fields)",
        package="bedrock",
        encoder="to_bedrock",
        decoder="from_bedrock",
        folder="BedrockFolder",
        sniff=_sniff.bedrock,
        capabilities=Capabilities(
            images="PNG, JPEG, GIF, WebP",
            audio="MP3, WAV, FLAC, Ogg, Opus, AAC, M4A, MKA, WebM, PCM",
            video="MKV, MOV, MP4, WebM, FLV, MPEG, WMV, 3GP",
            documents="PDF, CSV, DOC(X), XLS(X), HTML, TXT, MD",
            tool_result_media="native; audio moved to a user message¹",
            url_media="inlined (`s3://` ids as `s3Location`)",
            thinking="`reasoningContent` with signature or redacted",
        ),
        docs_page="bedrock.md",
    ),
    Provider(
        name="mistral",
        title="Mistral",
        aliases=(),
        sdk_call="client.chat.complete(model=..., **fields)",
        package="mistral",
        encoder="to_mistral",
        decoder="from_mistral",
        folder="MistralFolder",
        sniff=_sniff.mistral,
        capabilities=Capabilities(
            images="PNG, JPEG, WebP, GIF",
            audio="MP3, WAV, FLAC, Ogg",
            video=_NONE,
            documents="PDF",
            tool_result_media="moved to a user message¹",
            url_media="images and PDFs: the URL",
            thinking="`thinking` chunks",
        ),
        docs_page="mistral.md",
    ),
    Provider(
        name="ollama",
        title="Ollama",
        aliases=(),
        sdk_call="ollama.chat(model=..., **fields)",
        package="ollama",
        encoder="to_ollama",
        decoder="from_ollama",
        folder="OllamaFolder",
        sniff=_sniff.ollama,
        capabilities=Capabilities(
            images="JPEG, PNG",
            audio=_NONE,
            video=_NONE,
            documents=_NONE,
            tool_result_media="in the tool message's `images`",
            url_media="inlined",
            thinking="its own `thinking`",
        ),
        docs_page="ollama.md",
    ),
    Provider(
        name="cohere",
        title="Cohere",
        aliases=("cohere-v2",),
        sdk_call="client.v2.chat(model=..., **fields)",
        package="cohere",
        encoder="to_cohere",
        decoder="from_cohere",
        folder="CohereFolder",
        sniff=_sniff.cohere,
        capabilities=Capabilities(
            images="PNG, JPEG, WebP, GIF",
            audio=_NONE,
            video=_NONE,
            documents="text (`documents`)",
            tool_result_media="text and documents; media moved to a user message¹",
            url_media="images: the URL",
            thinking="its own `thinking`",
        ),
        docs_page="cohere.md",
    ),
    *(
        _openai_compatible(name, title, aliases, package, facts, images, audio, documents, video)
        for name, title, aliases, package, facts, images, audio, documents, video in (
            (
                "azure-openai",
                "Azure OpenAI",
                ("azure",),
                "azure_openai",
                {"client": "openai.AzureOpenAI; model is the deployment name"},
                "PNG, JPEG, WebP, GIF",
                "WAV, MP3",
                "PDF",
                _NONE,
            ),
            (
                "deepseek",
                "DeepSeek",
                (),
                "deepseek",
                {
                    "media": "text only",
                    "reasoning field": "reasoning_content (sent back after tool calls)",
                },
                _NONE,
                _NONE,
                _NONE,
                _NONE,
            ),
            (
                "xai",
                "xAI",
                ("grok",),
                "xai",
                {"media": "JPEG and PNG, 20 MiB", "reasoning field": "reasoning_content"},
                "JPEG, PNG",
                _NONE,
                _NONE,
                _NONE,
            ),
            (
                "groq",
                "Groq",
                (),
                "groq",
                {"media": "5 images of 4 MB", "reasoning field": "reasoning"},
                "PNG, JPEG, WebP",
                _NONE,
                _NONE,
                _NONE,
            ),
            (
                "openrouter",
                "OpenRouter",
                (),
                "openrouter",
                {"media": "what the routed model takes", "reasoning field": "reasoning"},
                "PNG, JPEG, WebP, GIF",
                "WAV, MP3",
                "PDF",
                "MP4, MPEG, MOV, WebM",
            ),
            (
                "vllm",
                "vLLM",
                (),
                "vllm",
                {"server": "local; media limits are the server's --limit-mm-per-prompt"},
                "PNG, JPEG, WebP, GIF",
                "WAV, MP3",
                _NONE,
                "MP4, WebM",
            ),
        )
    ),
    Provider(
        name="llama-cpp",
        title="llama.cpp / LM Studio",
        aliases=("llama.cpp", "llamacpp", "lm-studio", "lmstudio"),
        sdk_call="openai.OpenAI(base_url=...).chat.completions.create(model=..., **fields)",
        package="llama_cpp",
        encoder="to_llama_cpp",
        decoder="from_llama_cpp",
        folder="OpenAIChatFolder",
        sniff=_sniff.openai_chat,
        capabilities=Capabilities(
            images="JPEG, PNG",
            audio=_NONE,
            video=_NONE,
            documents=_NONE,
            tool_result_media="moved to a user message¹",
            url_media="inlined",
            thinking="`reasoning_content` read, not replayed",
        ),
        docs_page="openai-compatible.md",
        profile=Profile(
            base="openai-chat",
            differences=MappingProxyType(
                {"images": "data URIs only: URL images are downloaded and inlined"}
            ),
            parts=MappingProxyType(
                {"stream": "openai_chat", "tokens": "openai_chat", "request": "openai_chat"}
            ),
        ),
    ),
    *(
        Provider(
            name=f"anthropic-{platform}",
            title=f"Anthropic on {title}",
            aliases=aliases,
            sdk_call=f"anthropic.{client}().messages.create(model=..., max_tokens=..., **fields)",
            package=f"anthropic_{platform}",
            encoder=f"to_anthropic_{platform}",
            decoder=f"from_anthropic_{platform}",
            folder="AnthropicFolder",
            sniff=_sniff.anthropic,
            capabilities=Capabilities(
                images="JPEG, PNG, GIF, WebP",
                audio=_NONE,
                video=_NONE,
                documents="PDF, plain text",
                tool_result_media="native (images, documents)",
                url_media="inlined (the platform refuses URL sources)",
                thinking="`thinking` with signature, `redacted_thinking`",
            ),
            docs_page="anthropic-platforms.md",
            profile=Profile(
                base="anthropic",
                differences=MappingProxyType(
                    {
                        "envelope": f"anthropic_version {version!r} in the JSON body",
                        "files": "no Files API: file ids raise",
                        "URLs": "no URL sources: URL media is downloaded and inlined",
                    }
                ),
                parts=MappingProxyType({"stream": "anthropic", "tokens": "anthropic"}),
            ),
        )
        for platform, title, aliases, client, version in (
            (
                "bedrock",
                "Amazon Bedrock",
                ("bedrock-anthropic", "bedrock-invoke"),
                "AnthropicBedrock",
                "bedrock-2023-05-31",
            ),
            (
                "vertex",
                "Google Vertex AI",
                ("vertex-anthropic",),
                "AnthropicVertex",
                "vertex-2023-10-16",
            ),
        )
    ),
)
"""Every provider, in the order the docs list them."""

_BY_NAME: dict[str, Provider] = {entry.name: entry for entry in REGISTRY}
ALIASES: dict[str, str] = {alias: entry.name for entry in REGISTRY for alias in entry.aliases}
"""Alias -> canonical name, from the entries."""


PROVIDERS: tuple[str, ...] = tuple(entry.name for entry in REGISTRY)
"""Canonical names, in the registry's order."""

WIRE_FORMATS: tuple[str, ...] = tuple(entry.name for entry in REGISTRY if entry.profile is None)
"""The providers with a wire format of their own (no profiles): what tools show by default."""


_SHIPPED: dict[str, Provider] = dict(_BY_NAME)
_SHIPPED_ALIASES: dict[str, str] = dict(ALIASES)
_DECLARED: dict[str, Provider] = {}
"""Profiles declared at run time (`mb.register_profile`), by name, in the order declared."""
_declare_lock = threading.Lock()


def all_entries() -> tuple[Provider, ...]:
    """The shipped providers, then the profiles declared at run time."""
    return REGISTRY + tuple(_DECLARED.values())


def declare(entry: Provider, *, replace: bool = False) -> None:
    """Make ``entry`` (a profile declared at run time) known by its name and aliases.

    A shipped provider's alias (``lmstudio``) may be taken: it then names the declared profile
    until that is forgotten. A shipped provider's own name (``vllm``), or another declared
    profile's, takes ``replace=True``; otherwise `InvalidOptionError` says whose it is.
    """
    from ..errors import InvalidOptionError

    with _declare_lock:
        for name in (entry.name, *entry.aliases):
            holder = _declared_holder(name)
            if holder is not None and not (replace and holder == entry.name):
                raise InvalidOptionError(
                    f"profile {entry.name!r}: {name!r} is already declared (profile {holder!r}); "
                    "pass replace=True to declare it again"
                )
            if holder is None and name in _SHIPPED and not replace:
                raise InvalidOptionError(
                    f"profile {entry.name!r}: {name!r} is mediablocks' own provider; choose "
                    "another name, or pass replace=True to put your declaration in its place"
                )
        _forget(entry.name)
        _DECLARED[entry.name] = entry
        _BY_NAME[entry.name] = entry
        ALIASES.pop(entry.name, None)  # a shipped alias now names this profile
        for alias in entry.aliases:
            ALIASES[alias] = entry.name


def _declared_holder(name: str) -> str | None:
    """The declared profile that ``name`` names now, if any."""
    if name in _DECLARED:
        return name
    target = ALIASES.get(name)
    return target if target in _DECLARED else None


def forget(name: str) -> bool:
    """Forget a declared profile (True when there was one); what it shadowed is back."""
    key = name.strip().lower().replace("_", "-") if isinstance(name, str) else ""
    with _declare_lock:
        holder = _declared_holder(key)
        return False if holder is None else _forget(holder)


def _forget(name: str) -> bool:
    entry = _DECLARED.pop(name, None)
    if entry is None:
        return False
    if name in _SHIPPED:
        _BY_NAME[name] = _SHIPPED[name]  # the shipped provider it stood in for is back
    else:
        del _BY_NAME[name]
    for key in (name, *entry.aliases):
        if key in _SHIPPED_ALIASES:
            ALIASES[key] = _SHIPPED_ALIASES[key]
        elif ALIASES.get(key) == name:
            del ALIASES[key]
    return True


def canonical_provider(name: str) -> str:
    """The canonical wire-format name for a name or alias (``openai`` -> ``openai-chat``)."""
    if not isinstance(name, str):
        raise UnknownProviderError(f"a provider name is a string, not a {type(name).__name__}")
    key = name.strip().lower().replace("_", "-")
    key = ALIASES.get(key, key)
    if key not in _BY_NAME:
        known = ", ".join((*PROVIDERS, *_DECLARED))
        raise UnknownProviderError(
            f"unknown provider {name!r}; known: {known} (and 'openai'); declare an "
            "OpenAI-compatible endpoint with mb.register_profile"
        )
    return key


def request_module(name: str) -> ModuleType:
    """The provider's ``request`` part: ``encode_fields``, ``decode_fields`` and
    ``response_body`` for tools, tool choice, settings and whole responses.

    Raises `UnsupportedSettingError` for a provider whose requests are not translated yet.
    """
    return request_part(provider_entry(name))


def request_part(entry: Provider) -> ModuleType:
    """`request_module` for a provider already looked up (`provider_entry`)."""
    try:
        return entry.part("request")
    except ModuleNotFoundError as exc:
        if not (exc.name or "").endswith(".request"):
            raise
        raise UnsupportedSettingError(
            f"{entry.name}: tools, tool choice, settings and whole requests are not translated "
            "for this provider yet; pass them to the SDK call yourself"
        ) from None


def provider_entry(name: str) -> Provider:
    """The entry for a canonical name or alias; `UnknownProviderError` for any other name."""
    return _BY_NAME[canonical_provider(name)]


def limits_for(provider: str, model: str | None = None) -> ProviderLimits:
    """The limits of ``provider`` (a canonical name or any alias `encode` takes: ``"openai"``,
    ``"google"``...), for ``model`` if given.

    Model families documented to differ get their own numbers (OpenAI patch-based models and
    audio models, Claude on Bedrock); other models get the provider's. Raises
    `UnknownProviderError` for a name mediablocks does not know.
    """
    entry = provider_entry(provider)
    limits = entry.limits()
    if model is None:
        return limits
    return entry.limits_for_model(limits, model)
