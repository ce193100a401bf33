"""`Usage` priced by part from the caller's `Prices`; a cost given as a number is the total."""

from __future__ import annotations

import pytest

import mediablocks as mb


def test_usage_is_priced_by_part_from_the_callers_prices() -> None:
    usage = mb.Usage(
        input_tokens=1_000_000,
        cache_read_tokens=200_000,
        cache_write_tokens=100_000,
        output_tokens=500_000,
    )
    assert usage.cost is None
    prices = mb.Prices(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)
    cost = usage.priced(prices).cost
    assert cost is not None
    assert cost.input == pytest.approx(0.7 * 3.0)
    assert cost.cache_read == pytest.approx(0.2 * 0.3)
    assert cost.cache_write == pytest.approx(0.1 * 3.75)
    assert cost.output == pytest.approx(0.5 * 15.0)
    assert cost.total == pytest.approx(2.1 + 0.06 + 0.375 + 7.5)
    plain = mb.Usage(input_tokens=1_000_000, cache_read_tokens=1_000_000).priced(
        mb.Prices(input=2.0, output=0.0)
    )
    assert plain.cost is not None
    assert plain.cost.cache_read == pytest.approx(2.0)
    both = usage.priced(prices) + usage.priced(prices)
    assert both.cost is not None
    assert both.cost.total == pytest.approx(2 * cost.total)
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        mb.Prices(input=-1, output=1)


def test_a_cost_given_as_a_number_is_the_total_and_round_trips() -> None:
    usage = mb.Usage(input_tokens=3, cost=0.25)
    assert usage.cost == 0.25
    assert usage.cost is not None
    assert usage.cost.total == 0.25
    assert float(usage.cost) == 0.25
    reply = mb.AssistantMessage(content="x", usage=usage)
    back = mb.load_messages(mb.dump_messages([reply]))[0]
    assert isinstance(back, mb.AssistantMessage)
    assert back.usage == usage


def test_decode_response_fills_the_cost_when_given_prices() -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 1000,
            "output_tokens": 2000,
            "cache_read_input_tokens": 4000,
            "cache_creation_input_tokens": 0,
        },
    }
    assert mb.decode_response(response, "anthropic").usage_or_zero.cost is None
    prices = mb.Prices(input=3.0, output=15.0, cache_read=0.3)
    cost = mb.decode_response(response, "anthropic", prices=prices).usage_or_zero.cost
    assert cost is not None
    assert cost.input == pytest.approx(1000 * 3.0 / 1e6)
    assert cost.cache_read == pytest.approx(4000 * 0.3 / 1e6)
    assert cost.output == pytest.approx(2000 * 15.0 / 1e6)
    assert cost.total == pytest.approx(0.003 + 0.0012 + 0.03)
