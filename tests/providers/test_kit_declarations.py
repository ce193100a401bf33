"""What the shared kit checks for every provider, declared once: SDK types, round trip, fold.

A new provider added to the registry and to ``kit.STREAMS`` is covered here with no new code.
"""

from __future__ import annotations

import pytest
from tests.providers.kit import (
    STREAMS,
    assert_fold_equals_whole,
    assert_round_trip,
    assert_sdk_types,
    sample_history,
)

from mediablocks.providers import PROVIDERS


def test_the_kit_has_a_stream_for_every_provider() -> None:
    assert set(STREAMS) == set(PROVIDERS)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_sample_history_validates_against_the_sdk(provider: str) -> None:
    fields = assert_sdk_types(provider, sample_history(provider))
    assert fields


@pytest.mark.parametrize("target", ["sdk", "json"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_sample_history_round_trips(provider: str, target: str) -> None:
    assert_round_trip(provider, sample_history(provider), target)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_seed_stream_folds_to_what_its_whole_response_decodes_to(provider: str) -> None:
    message = assert_fold_equals_whole(provider, STREAMS[provider])
    assert message.content
