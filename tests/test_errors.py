from __future__ import annotations

import inspect

import pytest

import mediablocks as mb
from mediablocks import errors

EXPECTED_BUILTINS = {
    "DecodeError": ValueError,
    "BrokenMediaError": ValueError,
    "MediaTypeError": ValueError,
    "UnsupportedBlockError": ValueError,
    "UnknownProviderError": ValueError,
    "DoesNotFitError": ValueError,
    "ToolResultMismatchError": ValueError,
    "TooLargeError": ValueError,
    "ImageBombError": ValueError,
    "InvalidSourceError": ValueError,
    "InvalidOptionError": ValueError,
    "InvalidTextError": ValueError,
    "DownloadTooLargeError": OSError,
    "SourceError": OSError,
    "PathNotAllowedError": PermissionError,
    "FetchError": OSError,
    "BlockedURLError": PermissionError,
    "FetchTimeoutError": TimeoutError,
}


@pytest.mark.parametrize(("name", "builtin"), sorted(EXPECTED_BUILTINS.items()))
def test_each_error_is_a_mediablocks_error_and_the_builtin_callers_expect(
    name: str, builtin: type[Exception]
) -> None:
    cls = getattr(errors, name)
    assert issubclass(cls, mb.MediaBlocksError)
    assert issubclass(cls, builtin)


def test_specific_parents() -> None:
    assert issubclass(mb.BlockedURLError, mb.FetchError)
    assert issubclass(mb.ImageBombError, mb.TooLargeError)
    assert issubclass(mb.PathNotAllowedError, mb.SourceError)
    # A body past max_bytes is both: `except FetchError` around a fetch catches it too.
    assert issubclass(mb.DownloadTooLargeError, mb.TooLargeError)
    assert issubclass(mb.DownloadTooLargeError, mb.FetchError)


def test_invalid_policy_values_are_mediablocks_errors() -> None:
    for bad in ({"max_bytes": 0}, {"timeout": -1.0}, {"max_redirects": -1}):
        with pytest.raises(mb.InvalidOptionError, match=f"FetchPolicy.{next(iter(bad))}"):
            mb.FetchPolicy(**bad)  # type: ignore[arg-type]


def test_every_error_class_is_drawn_in_the_module_docstring() -> None:
    doc = errors.__doc__ or ""
    classes = [
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, Exception)
    ]
    assert set(classes) == set(errors.__all__)
    for name in classes:
        assert name in doc, f"{name} is missing from the drawn error tree"


def test_does_not_fit_error_lists_every_problem() -> None:
    error = mb.DoesNotFitError("2 blocks do not fit", ["a too big", "b too wide"])
    assert error.problems == ["a too big", "b too wide"]
