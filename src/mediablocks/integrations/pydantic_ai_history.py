"""A pydantic-ai history processor that fits the media of every model request for the agent's
model: ``Agent(model, history_processors=[PrepareMediaHistory()])``.

Before each request the history goes through `from_pydantic_ai`, `prepare` for the model's
provider (the whole history at once, so request totals such as the image count are kept), and
back through `to_pydantic_ai`; only the messages `prepare` changed are replaced.

This module imports ``pydantic_ai`` when it is imported (pydantic-ai reads the processor's
``RunContext`` annotation): ``import mediablocks`` does not import it.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage
from pydantic_ai.tools import RunContext

from ..errors import InvalidOptionError
from ..preparing import prepare
from .pydantic_ai import mediablocks_provider, message_groups, to_pydantic_ai

__all__ = ["PrepareMediaHistory", "provider_of"]


def provider_of(model: Any) -> tuple[str | None, str | None]:
    """The mediablocks provider and model name of a pydantic-ai model (its ``system`` and
    ``model_name``); None for a provider we do not know (``TestModel``, ``FunctionModel``)."""
    name = getattr(model, "model_name", None)
    return mediablocks_provider(getattr(model, "system", None)), name if isinstance(
        name, str
    ) else None


class PrepareMediaHistory:
    """A history processor running `prepare` for the agent's model before each request.

    ``provider`` and ``model`` name what to fit for; by default they come from the agent's model
    (``AnthropicModel`` -> ``"anthropic"`` and its model name). ``prepare_options`` go to
    `prepare`. A model whose provider cannot be told (pydantic-ai's test models) raises
    `InvalidOptionError`: name it with ``provider=``. Media that cannot fit raise
    `DoesNotFitError` from the run, naming the message and block.
    """

    def __init__(
        self, provider: str | None = None, *, model: str | None = None, **prepare_options: Any
    ) -> None:
        self.provider = provider
        self.model = model
        self.prepare_options = prepare_options

    def __call__(self, ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
        provider, model = self._target(ctx.model)
        groups = message_groups(messages)
        flat = [message for group in groups for message in group]
        prepared = prepare(flat, provider, model=model, **self.prepare_options)
        if all(new is old for new, old in zip(prepared, flat, strict=True)):
            return messages
        out: list[ModelMessage] = []
        start = 0
        for original, group in zip(messages, groups, strict=True):
            end = start + len(group)
            changed = prepared[start:end]
            if all(new is old for new, old in zip(changed, group, strict=True)):
                out.append(original)
            else:
                (rebuilt,) = to_pydantic_ai(changed)
                out.append(rebuilt)
            start = end
        return out

    def _target(self, model: Any) -> tuple[str, str | None]:
        provider, name = provider_of(model)
        if self.provider is not None:
            return self.provider, self.model
        if provider is None:
            raise InvalidOptionError(
                f"PrepareMediaHistory cannot tell the provider of {type(model).__name__}; name "
                "it: PrepareMediaHistory(provider='anthropic', model=...)"
            )
        return provider, self.model or name
