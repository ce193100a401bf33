from __future__ import annotations

import inspect
import pickle
import re

import pytest

import mediablocks as mb
from mediablocks import errors
from tests.conftest import ROOT

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
    assert set(classes) == set(errors.__all__) - {"HTTP_STATUS", "FitProblem"}
    for name in classes:
        assert name in doc, f"{name} is missing from the drawn error tree"


def test_does_not_fit_error_lists_every_problem() -> None:
    error = mb.DoesNotFitError("2 blocks do not fit", ["a too big", "b too wide"])
    assert error.problems == ["a too big", "b too wide"]


# -- codes ----------------------------------------------------------------------------------------


def _error_classes() -> list[type[mb.MediaBlocksError]]:
    return sorted(
        {
            value
            for value in vars(errors).values()
            if inspect.isclass(value) and issubclass(value, mb.MediaBlocksError)
        },
        key=lambda cls: cls.__name__,
    )


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_has_a_stable_code_mapped_to_a_status(cls: type[mb.MediaBlocksError]) -> None:
    assert re.fullmatch(r"[a-z]+(_[a-z]+)*", cls.code)
    assert cls.code in errors.HTTP_STATUS
    assert cls.code in (errors.__doc__ or "")  # drawn beside its class
    assert 400 <= errors.HTTP_STATUS[cls.code] <= 599


def test_codes_name_one_class_each() -> None:
    classes = _error_classes()
    assert len({cls.code for cls in classes}) == len(classes)
    assert mb.ImageBombError is mb.DecompressionBombError


def test_statuses_group_the_codes_an_upload_endpoint_needs() -> None:
    assert mb.DecompressionBombError("x").http_status == 413
    assert mb.FileTooLargeError("x").http_status == 413
    assert mb.NotAcceptedError("x").http_status == 415
    assert mb.UnsupportedBlockError("x").http_status == 415
    assert mb.BrokenMediaError("x").http_status == 422
    assert mb.BlockedURLError("x").http_status == 403
    assert mb.FetchTimeoutError("x").http_status == 504


def test_every_code_in_the_table_is_documented() -> None:
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    for code, status in errors.HTTP_STATUS.items():
        if code == "mediablocks_error":
            continue
        assert f"`{code}`" in page or f" {code} " in page, code
        assert str(status) in page


@pytest.mark.parametrize(
    "error",
    [
        mb.FetchStatusError("HTTP 429", status_code=429, url="https://x.test/a", retry_after="7"),
        mb.ConversionCrashedError("crashed", signal="SIGSEGV", limit="stack_bytes"),
        mb.TooLargeError("big", limit=10, size=20),
        mb.DoesNotFitError("x", [mb.FitProblem("m 0: big", code="too_large")]),
        mb.HistoryError(["one"]),
        mb.UploadError("refused", status=503, retry_after=2),
    ],
    ids=lambda e: type(e).__name__,
)
def test_errors_survive_pickling_with_their_fields(error: mb.MediaBlocksError) -> None:
    # Errors cross process boundaries (worker pools, Ray, multiprocessing).
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert str(copy) == str(error)
    assert copy.code == error.code
    assert vars(copy).keys() == vars(error).keys()
    for name, value in vars(error).items():
        assert getattr(copy, name) == value


def test_retry_after_is_read_as_seconds_or_an_http_date() -> None:
    assert mb.FetchError("x", status=429, retry_after="120").retry_after == 120.0
    assert mb.FetchError("x", retry_after="soon").retry_after is None
    later = mb.FetchError("x", retry_after="Wed, 21 Oct 2099 07:28:00 GMT").retry_after
    assert later is not None
    assert later > 3600
    past = mb.UploadError("x", retry_after="Wed, 21 Oct 2015 07:28:00 GMT").retry_after
    assert past == 0.0
    assert mb.FetchError("x").status is None


def test_a_fit_problem_is_its_text_with_a_code_and_a_block() -> None:
    block = mb.TextBlock(text="x")
    problem = mb.FitProblem("message 0, block 0: too big", code="too_large", block=block)
    assert problem == "message 0, block 0: too big"
    assert problem.startswith("message 0")
    assert "; ".join([problem, problem]).count("big") == 2
    assert (problem.code, problem.block, problem.http_status) == ("too_large", block, 413)
    plain = mb.DoesNotFitError("2 problems", ["a too big", "b too wide"])
    assert plain.problems == ["a too big", "b too wide"]
    assert [p.code for p in plain.problems] == ["does_not_fit", "does_not_fit"]
    assert mb.DoesNotFitError("alone").problems == ["alone"]  # never an empty list


def test_does_not_fit_says_one_status_when_its_problems_agree() -> None:
    big = mb.FitProblem("a", code="too_large")
    many = mb.FitProblem("b", code="too_many")
    kind = mb.FitProblem("c", code="unsupported_kind")
    assert mb.DoesNotFitError("x", [big, many]).http_status == 413
    assert mb.DoesNotFitError("x", [kind]).http_status == 415
    assert mb.DoesNotFitError("x", [big, kind]).http_status == 422
