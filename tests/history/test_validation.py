from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mediablocks as mb
from mediablocks.history.validation import HistoryError, ensure_valid, validate


def _codes(problems: list) -> list[str]:  # type: ignore[type-arg]
    return [p.code for p in problems]


def test_a_clean_history_has_no_problems() -> None:
    history = [
        mb.SystemMessage.text("s"),
        mb.UserMessage.text("hi"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f", args={})]),
        mb.ToolMessage.from_result("a", "ok"),
        mb.AssistantMessage(content=["done"]),
    ]
    for provider in (None, "anthropic", "openai", "gemini", "bedrock", "mistral", "ollama"):
        assert validate(history, provider) == []


def test_every_problem_is_reported_at_once() -> None:
    history = [
        mb.UserMessage(content=[mb.TextBlock(text="  ")]),
        mb.AssistantMessage(
            content=[
                mb.ToolCallBlock(id="a", name="f", args={}),
                mb.ToolCallBlock(id="a", name="g", raw_args="{oops"),
            ]
        ),
        mb.ToolMessage.from_result("zzz", "orphan"),
    ]
    problems = validate(history)
    assert _codes(problems) == [
        "empty-text",
        "duplicate-tool-call-id",
        "invalid-tool-arguments",
        "orphan-tool-result",
    ]
    assert (problems[1].message_index, problems[1].block_index) == (1, 1)


def test_provider_rules() -> None:
    history = [
        mb.AssistantMessage(content=["I start"]),
        mb.SystemMessage.text("late system"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f", args={})]),
        mb.UserMessage.text("never answered the call"),
    ]
    anthropic = _codes(validate(history, "anthropic"))
    assert "first-turn-not-user" in anthropic
    assert "system-not-first" in anthropic
    assert "tool-call-without-result" in anthropic
    ollama = _codes(validate(history, "ollama"))
    assert "tool-call-without-result" not in ollama
    assert "first-turn-not-user" not in ollama


def test_ensure_valid_raises_listing_every_problem() -> None:
    history = [mb.UserMessage(content=[mb.TextBlock(text="")]), mb.ToolMessage.from_result("x", "")]
    with pytest.raises(HistoryError) as info:
        ensure_valid(history)
    assert len(info.value.problems) == 2
    assert "orphan-tool-result" in str(info.value)
    assert isinstance(info.value, mb.MediaBlocksError)


def test_unknown_provider_is_refused() -> None:
    with pytest.raises(mb.UnknownProviderError):
        validate([], "skynet")


def test_parallel_calls_answered_by_one_tool_message_each_are_fine() -> None:
    history = [
        mb.UserMessage.text("weather in Paris and Rome?"),
        mb.AssistantMessage(
            content=[mb.ToolCallBlock(id="a", name="w"), mb.ToolCallBlock(id="b", name="w")]
        ),
        mb.ToolMessage.from_result("a", "18 C"),
        mb.ToolMessage.from_result("b", "14 C"),
        mb.AssistantMessage(content=["warm"]),
        mb.UserMessage.text("thanks"),
    ]
    for provider in ("openai", "anthropic", "gemini", "bedrock", "openai-responses"):
        assert validate(history, provider) == [], provider


def test_a_call_answered_after_a_user_message() -> None:
    history = [
        mb.UserMessage.text("go"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f")]),
        mb.UserMessage.text("also, hurry"),
        mb.ToolMessage.from_result("a", "ok"),
        mb.AssistantMessage(content=["done"]),
    ]
    openai = validate(history, "openai")
    assert [(p.code, p.message_index, p.block_index) for p in openai] == [
        ("tool-call-without-result", 1, 0),
        ("role-order", 3, -1),
    ]
    # Anthropic and Bedrock send the user text and the result as one user turn: accepted.
    assert validate(history, "anthropic") == []
    assert validate(history, "bedrock") == []


def test_mistral_refuses_a_user_message_right_after_tool_results() -> None:
    history = [
        mb.UserMessage.text("go"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f")]),
        mb.ToolMessage.from_result("a", "ok"),
        mb.UserMessage.text("and now?"),
    ]
    assert _codes(validate(history, "mistral")) == ["role-order"]
    assert validate(history, "openai") == []
    bridged = [*history[:3], mb.AssistantMessage(content=["ok"]), history[3]]
    assert validate(bridged, "mistral") == []


def test_empty_messages_duplicate_results_and_session_messages() -> None:
    history = [
        mb.UserMessage(content=[]),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="a", name="f")]),
        mb.CustomMessage(custom_type="ui-note", data={"x": 1}),  # never sent: ignored
        mb.ToolMessage.from_result("a", "one"),
        mb.ToolMessage.from_result("a", "two"),
        mb.AssistantMessage(content=[]),  # a last empty assistant turn is a prefill: fine
    ]
    problems = validate(history, "anthropic")
    assert [(p.code, p.message_index) for p in problems] == [
        ("empty-message", 0),
        ("duplicate-tool-result", 4),
    ]
    assert str(problems[1]) == (
        "message 4, block 0: tool call 'a' already has a result [duplicate-tool-result]"
    )


def test_empty_tool_call_ids_and_names_are_flagged_and_refused_where_sent() -> None:
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="", name="", args={})]),
        mb.ToolMessage.from_result("", "r"),
    ]
    found = [(p.message_index, p.block_index, p.code) for p in validate(history)]
    assert (1, 0, "empty-tool-name") in found
    assert (1, 0, "empty-tool-call-id") in found
    assert (2, 0, "empty-tool-call-id") in found
    anthropic = _codes(validate(history, "anthropic"))
    assert anthropic.count("empty-tool-call-id") == 2
    # Gemini and Ollama match results by name: no id is sent, so none is needed
    assert "empty-tool-call-id" not in _codes(validate(history, "gemini"))
    assert "empty-tool-name" in _codes(validate(history, "gemini"))
    for provider in ("anthropic", "openai", "bedrock", "openai-responses", "deepseek"):
        with pytest.raises(mb.UnsupportedBlockError, match=r"message 1, block 0: tool call"):
            mb.encode(history, provider)
    named = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id="", name="f", args={})]),
        mb.ToolMessage.from_result("", "r", name="f"),
    ]
    assert mb.encode(named, "gemini")["contents"][1]["parts"][0]["function_call"]["name"] == "f"
    with pytest.raises(mb.UnsupportedBlockError, match="has no name"):
        mb.encode(history, "gemini")


def test_a_call_to_a_tool_not_in_the_request_is_flagged() -> None:
    weather = mb.Tool(name="weather", description="d", parameters={"type": "object"})
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(
            content=[
                mb.ToolCallBlock(id="a", name="weather", args={}),
                mb.ToolCallBlock(id="b", name="launch", args={}),
            ]
        ),
        mb.ToolMessage.from_results(
            [mb.ToolResultBlock(tool_call_id="a"), mb.ToolResultBlock(tool_call_id="b")]
        ),
    ]
    problems = validate(history, "anthropic", tools=[weather])
    assert [(p.message_index, p.block_index, p.code) for p in problems] == [(1, 1, "unknown-tool")]
    assert "'launch'" in problems[0].message
    assert "weather" in problems[0].message
    assert validate(history, tools=["weather", "launch"]) == []
    assert _codes(validate(history, tools=[])) == ["unknown-tool", "unknown-tool"]
    assert validate(history) == []  # no tools given: not checked
    with pytest.raises(HistoryError, match="unknown-tool"):
        ensure_valid(history, tools=[weather])


def test_documented_length_limits() -> None:
    long_id = "c" * 65
    history = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[mb.ToolCallBlock(id=long_id, name="f", args={})]),
        mb.ToolMessage.from_result(long_id, "x" * (10_485_760 + 1)),
    ]
    bedrock = [(p.message_index, p.code) for p in validate(history, "bedrock")]
    assert bedrock == [(1, "tool-call-id-too-long"), (2, "tool-call-id-too-long")]
    chat = [(p.message_index, p.code) for p in validate(history, "openai")]
    assert chat == [(2, "text-too-long")]
    responses = _codes(validate(history, "openai-responses"))
    assert sorted(responses) == ["text-too-long", "tool-call-id-too-long", "tool-call-id-too-long"]
    assert validate(history, "anthropic") == []
    with pytest.raises(mb.UnsupportedBlockError, match="takes at most 64"):
        mb.encode(history, "bedrock")
    with pytest.raises(mb.UnsupportedBlockError, match="10,485,760"):
        mb.encode(history, "openai")
    thinking = [
        mb.UserMessage.text("q"),
        mb.AssistantMessage(content=[mb.ThinkingBlock(thinking="t" * 10_485_761), "a"]),
    ]
    assert _codes(validate(thinking, "openai-responses")) == ["text-too-long"]


def test_compaction_summaries_are_not_a_first_turn_problem() -> None:
    history = [
        mb.SystemMessage.text("s"),
        mb.CompactionSummaryMessage(summary="earlier we did X"),
        mb.AssistantMessage(content=["and then"]),
        mb.UserMessage.text("go on"),
    ]
    for provider in ("anthropic", "gemini", "bedrock"):
        assert validate(history, provider) == []
    assert _codes(validate(history[2:], "anthropic")) == ["first-turn-not-user"]


def test_validate_and_pretty_take_dicts_and_a_single_message() -> None:
    as_dicts = [
        {"role": "user", "content": [{"type": "text", "text": ""}]},
        {"role": "assistant", "content": "ok"},
    ]
    assert _codes(validate(as_dicts)) == ["empty-text"]
    assert validate(mb.UserMessage.text("hi")) == []
    assert validate("hello", "anthropic") == []  # a plain string is one user message
    assert _codes(validate([("user", "q"), ("assistant", " ")])) == ["empty-text"]
    with pytest.raises(mb.DecodeError, match="not a int"):
        validate(3)


def test_a_lone_surrogate_in_a_summary_or_metadata_is_flagged_on_the_message() -> None:
    history = [
        mb.CompactionSummaryMessage(summary="before \ud83d after"),
        mb.UserMessage(content="q", metadata={"k": ["\udfff"]}),
    ]
    found = [(p.message_index, p.block_index, p.code) for p in validate(history)]
    assert found == [(0, -1, "invalid-unicode"), (1, -1, "invalid-unicode")]


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["role", "content", "type", "text", "id"]), inner, max_size=4
        )
        | st.tuples(st.sampled_from(["user", "assistant", "tool", "x"]), inner)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSONISH)
@example(value={"content": [{"type": []}]})  # an unhashable type once escaped as TypeError
def test_validate_and_pretty_raise_only_mediablocks_errors_on_any_input(value: object) -> None:
    for call in (lambda: validate(value, "anthropic"), lambda: mb.pretty(value)):  # type: ignore[arg-type]
        escaped: BaseException | None = None
        result: object = None
        try:
            result = call()
        except Exception as exc:  # the property is about which exceptions escape
            escaped = exc
        if escaped is None:
            assert isinstance(result, (list, str))
        else:
            assert isinstance(escaped, mb.MediaBlocksError), repr(escaped)
