"""A LangChain v1 agent middleware that fits the media of every model call for the agent's model.

``create_agent(model, tools, middleware=[PrepareMediaMiddleware()])``: before each model call the
request's messages go through `from_langchain`, `prepare` for the model's provider, and back
through `to_langchain`; only the messages `prepare` changed are replaced, and only in the request
(the agent's state keeps the originals, so a later call to another model fits them afresh).

This module imports ``langchain`` when it is imported (it subclasses ``AgentMiddleware``):
``import mediablocks`` does not import it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse

from ..errors import InvalidOptionError
from ..preparing import prepare
from ._langchain_blocks import mediablocks_provider
from .langchain import from_langchain, to_langchain

__all__ = ["PrepareMediaMiddleware", "provider_of"]


def provider_of(chat_model: Any) -> tuple[str | None, str | None]:
    """The mediablocks provider and model name of a LangChain chat model, from the names it
    gives LangSmith (``ls_provider``, ``ls_model_name``); None where it gives none we know."""
    try:
        params = chat_model._get_ls_params()
    except Exception:  # a model class whose tracing hook fails tells us nothing
        return None, None
    provider = mediablocks_provider(params.get("ls_provider"))
    name = params.get("ls_model_name")
    return provider, name if isinstance(name, str) else None


class PrepareMediaMiddleware(AgentMiddleware):
    """Runs `prepare` on each model request, for the agent's model.

    ``provider`` and ``model`` name what to fit for; by default they come from the chat model
    (``ChatAnthropic`` -> ``"anthropic"`` and its model name). ``prepare_options`` go to
    `prepare` (``documents="pages"``, ``audio="raise"``...). A model whose provider cannot be
    told raises `InvalidOptionError` on the first call: name it with ``provider=``. What cannot be
    fitted raises `DoesNotFitError` from the model call, naming the message and block.
    """

    def __init__(
        self, provider: str | None = None, *, model: str | None = None, **prepare_options: Any
    ) -> None:
        super().__init__()
        self.provider = provider
        self.model = model
        self.prepare_options = prepare_options

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        """Call the model with the request's media fitted."""
        return handler(self.fitted(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        """The async form: the fitting runs in a worker thread, off the event loop."""
        return await handler(await asyncio.to_thread(self.fitted, request))

    def fitted(self, request: ModelRequest) -> ModelRequest:
        """The request with its messages' media prepared for the model (the same request when
        nothing changed)."""
        provider, model = self._target(request.model)
        originals = list(request.messages)
        converted = from_langchain(originals)
        prepared = prepare(converted, provider, model=model, **self.prepare_options)
        if all(new is old for new, old in zip(prepared, converted, strict=True)):
            return request
        messages = [
            original if new is old else to_langchain([new])[0]
            for original, old, new in zip(originals, converted, prepared, strict=True)
        ]
        return request.override(messages=messages)

    def _target(self, chat_model: Any) -> tuple[str, str | None]:
        provider, model = provider_of(chat_model)
        provider = self.provider or provider
        if provider is None:
            raise InvalidOptionError(
                f"PrepareMediaMiddleware cannot tell the provider of {type(chat_model).__name__}; "
                "name it: PrepareMediaMiddleware(provider='anthropic', model=...)"
            )
        return provider, self.model or (model if self.provider is None else self.model)
