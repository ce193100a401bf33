"""Private attributes set up with one dict copy, for the models built by the thousand.

Pydantic gives every instance of a model with private attributes (``_data = PrivateAttr()``) its
own values through a generic function that, for each attribute, asks for its default and
deep-copies it: about 5 µs for a media source's seven attributes, more than validating the
block itself, and loading a history builds thousands of them. `quick_private_setup` gives such a
class a ``model_post_init`` doing the same in one step: a copy of the defaults (kept as they are:
only defaults that need no copy are taken), each ``default_factory`` called, then the class's own
per-instance setup, ``_after_validation``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import NoneType
from typing import Any

from pydantic import BaseModel
from pydantic.fields import ModelPrivateAttr
from pydantic_core import PydanticUndefined

__all__ = ["quick_private_setup"]

_SHARED_AS_IS = frozenset({NoneType, bool, int, float, str, bytes})
"""Defaults pydantic would copy to themselves: the same object serves every instance."""


def quick_private_setup(cls: type[BaseModel]) -> None:
    """Give ``cls`` a ``model_post_init`` that sets its private attributes in one step, then calls
    ``cls._after_validation(self)`` when the class has one.

    Called from ``__pydantic_init_subclass__``, once pydantic has built the class. A default that
    would need a copy, or a factory that takes the validated data, is made as pydantic makes it
    (`get_default`), for that attribute alone. A class that defines its own ``model_post_init``
    (a subclass written elsewhere) keeps pydantic's setup and its own method.
    """
    made = getattr(vars(cls).get("model_post_init"), "__wrapped__", None)  # pydantic's wrapping
    if getattr(made, "__qualname__", None) == f"{cls.__qualname__}.model_post_init":
        return
    defaults: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    others: list[tuple[str, ModelPrivateAttr]] = []
    for name, attribute in cls.__private_attributes__.items():
        factory = attribute.default_factory
        if factory is not None and not attribute.default_factory_takes_validated_data:
            factories.append((name, factory))  # type: ignore[arg-type]
        elif factory is None and type(attribute.default) in _SHARED_AS_IS:
            defaults[name] = attribute.default
        elif factory is not None or attribute.default is not PydanticUndefined:
            others.append((name, attribute))
    after: Callable[[Any], None] | None = getattr(cls, "_after_validation", None)

    def model_post_init(self: BaseModel, context: Any, /) -> None:
        if getattr(self, "__pydantic_private__", None) is None:
            private = defaults.copy()
            for name, factory in factories:
                private[name] = factory()
            for name, attribute in others:
                data = {**self.__dict__, **private}
                private[name] = attribute.get_default(
                    call_default_factory=True, validated_data=data
                )
            object.__setattr__(self, "__pydantic_private__", private)
        if after is not None:
            after(self)

    cls.model_post_init = model_post_init  # type: ignore[method-assign]
