"""fit_session: a 200-turn browser-agent history under every provider's limits and a budget."""

from __future__ import annotations

import functools
import io
import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

import mediablocks as mb
from mediablocks.providers._options import PROVIDERS

TURNS = 200
KEEP = 4
BUDGET = 40_000


def screenshot(number: int, size: tuple[int, int] = (640, 400)) -> bytes:
    """A page of text-like bars, different for every number (a real PNG encoder's output)."""
    image = Image.new("RGB", size, (250, 250, 250))
    draw = ImageDraw.Draw(image)
    rows = random.Random(number)
    for row in range(size[1] // 28):
        top = 12 + row * 28
        width = rows.randint(size[0] // 8, size[0] - 20)
        draw.rectangle((8, top, 8 + width, top + 10), fill=(40, 40, 40))
    draw.rectangle((0, 0, size[0] - 1, 6), fill=(number % 256, 90, 200))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def browser_history(turns: int = TURNS) -> list[mb.Message]:
    history: list[mb.Message] = [
        mb.SystemMessage(content=[mb.TextBlock(text="You drive a web browser.")]),
        mb.UserMessage.text("Find the cheapest flight to Lisbon next Friday."),
    ]
    for number in range(turns):
        call = f"c{number}"
        history.append(
            mb.AssistantMessage(
                content=[
                    mb.TextBlock(text=f"Step {number}: I click the next result."),
                    mb.ToolCallBlock(id=call, name="computer", args={"action": "screenshot"}),
                ]
            )
        )
        history.append(
            mb.ToolMessage(
                content=[
                    mb.ToolResultBlock(
                        tool_call_id=call,
                        content=[mb.ImageBlock.from_bytes(screenshot(number))],
                    )
                ]
            )
        )
    return history


@functools.cache
def history_200() -> tuple[mb.Message, ...]:
    return tuple(browser_history())


def media_of(messages: list[mb.Message]) -> list[mb.MediaBlock]:
    found: list[mb.MediaBlock] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, mb.MediaBlock):
                found.append(block)
            elif isinstance(block, mb.ToolResultBlock) and not isinstance(block.content, str):
                found.extend(b for b in block.content if isinstance(b, mb.MediaBlock))
    return found


def tool_ids(messages: list[mb.Message]) -> tuple[list[str], list[str]]:
    calls = [b.id for m in messages for b in m.content if isinstance(b, mb.ToolCallBlock)]
    results = [
        b.tool_call_id for m in messages for b in m.content if isinstance(b, mb.ToolResultBlock)
    ]
    return calls, results


@pytest.mark.parametrize("provider", PROVIDERS)
def test_200_turns_fit_every_provider(provider: str) -> None:
    history = list(history_200())
    store = mb.MemoryMediaStore()
    fitted = mb.fit_session(history, provider, keep_last_media=KEEP, max_tokens=BUDGET, store=store)
    report = fitted.report
    limits = mb.limits_for(provider)

    # Under the budget, by the library's own estimate of the result, and it says what it saved.
    assert mb.estimate_tokens(fitted, provider) == report.tokens_after <= BUDGET
    # The last KEEP screenshots are the very bytes, where the provider takes images at all.
    originals = media_of(history)
    sent = [b for b in media_of(fitted) if "thumbnail_of" not in b.metadata]
    if limits.image_types:
        assert report.tokens_before > report.tokens_after
        assert [b.read() for b in sent[-KEEP:]] == [b.read() for b in originals[-KEEP:]]
    else:
        assert sent == []  # deepseek takes no images: every screenshot became a reference
        assert all(e.became == "reference" for e in report.evicted)
    # No request over the provider's limits.
    images = [b for b in media_of(fitted) if isinstance(b, mb.ImageBlock)]
    if limits.max_images is not None:
        assert len(images) <= limits.max_images
    body = mb.encode_json(fitted, provider, model="m", max_tokens=100)
    if limits.max_request_bytes is not None:
        assert len(body) <= limits.max_request_bytes
    # Every tool call still has its result, in the same order.
    assert tool_ids(fitted) == tool_ids(history)
    assert mb.validate(fitted, provider) == []
    # Fitting the same history again gives the same request, byte for byte.
    again = mb.fit_session(history, provider, keep_last_media=KEEP, max_tokens=BUDGET, store=store)
    assert mb.encode_json(again, provider, model="m", max_tokens=100) == body
    # What was evicted is reported, and every reference can be opened again.
    assert len(report.evicted) == report.media - report.kept
    for evicted in report.evicted:
        assert evicted.stored
        assert evicted.sha256 is not None
    first = report.evicted[0]
    reopened = mb.view_media(f"sha256:{first.sha256}", store, tool_call_id="v1")
    assert isinstance(reopened.content, list)
    assert reopened.content[1].read() == originals[0].read()


def test_the_history_itself_is_not_changed() -> None:
    history = list(history_200())
    before = mb.dump_messages(history)
    mb.fit_session(history, "anthropic", keep_last_media=KEEP, older="reference")
    assert mb.dump_messages(history) == before


def test_older_images_become_labelled_low_detail_thumbnails() -> None:
    history = browser_history(12)
    fitted = mb.fit_session(history, "openai-responses", keep_last_media=2, step=1)
    assert fitted.report.kept == 2
    first_result = fitted[3].content[0]
    assert isinstance(first_result, mb.ToolResultBlock)
    label, thumb = first_result.content  # type: ignore[misc]
    assert isinstance(label, mb.TextBlock)
    assert label.text.startswith("[thumbnail of image sha256:")
    assert label.text.endswith("from tool call c0, not stored]")
    assert isinstance(thumb, mb.ImageBlock)
    assert thumb.mime_type == "image/jpeg"
    assert thumb.detail == "low"
    with Image.open(io.BytesIO(thumb.read())) as image:
        assert max(image.size) == 256
        assert image.size == (256, 160)
    # OpenAI counts a low-detail image as its base cost only.
    assert mb.estimate_tokens(thumb, "openai-responses") < mb.estimate_tokens(
        media_of(history)[0], "openai-responses"
    )


def test_appending_turns_changes_only_the_tail_between_steps() -> None:
    history = browser_history(60)
    step = 8
    bodies = []
    for end in range(40, 62, 2):  # one more screenshot turn each time
        fitted = mb.fit_session(history[:end], "anthropic", keep_last_media=KEEP, step=step)
        bodies.append(json.loads(mb.encode_json(fitted, "anthropic", model="m", max_tokens=9)))
    rewrites = 0
    for shorter, longer in itertools.pairwise(bodies):
        old, new = shorter["messages"], longer["messages"]
        # Anthropic merges nothing here: one request message per history message.
        assert len(new) == len(old) + 2
        if new[: len(old)] != old:
            rewrites += 1
    # Ten appended screenshots, evicted eight at a time: at most two rewrites of earlier turns.
    assert 1 <= rewrites <= 2
    # With step=1 every new screenshot evicts one: every append rewrites an earlier turn.
    one = [
        mb.encode_json(
            mb.fit_session(history[:end], "anthropic", keep_last_media=KEEP, step=1),
            "anthropic",
            model="m",
            max_tokens=9,
        )
        for end in (40, 42)
    ]
    assert json.loads(one[1])["messages"][:40] != json.loads(one[0])["messages"]


def test_between_keep_and_keep_plus_step_media_stay_whole() -> None:
    history = browser_history(KEEP + 20)
    for turns in range(KEEP, KEEP + 20):
        head = history[: 2 + 2 * turns]
        fitted = mb.fit_session(head, "anthropic", keep_last_media=KEEP, step=8)
        assert KEEP <= fitted.report.kept <= KEEP + 7
        assert (turns - fitted.report.kept) % 8 == 0


def test_reference_and_view_media_bring_the_bytes_back(tmp_path: Any) -> None:
    history = browser_history(10)
    store = mb.DirectoryMediaStore(tmp_path / "media")
    fitted = mb.fit_session(
        history, "gemini", keep_last_media=3, older="reference", store=store, step=1
    )
    result = fitted[3].content[0]
    assert isinstance(result, mb.ToolResultBlock)
    (note,) = result.content  # type: ignore[misc]
    assert isinstance(note, mb.TextBlock)
    digest = fitted.report.evicted[0].sha256
    assert digest is not None
    assert note.text == f"[image sha256:{digest[:16]}… from tool call c0, stored]"
    # The model quotes the note; the tool answers with the screenshot itself.
    answer = mb.view_media(note.text, store, tool_call_id="v1")
    assert not answer.is_error
    assert answer.content[1].read() == media_of(history)[0].read()  # type: ignore[union-attr]
    # A new store object over the same folder still has it (another process, a later turn).
    again = mb.view_media(
        digest[:12], mb.DirectoryMediaStore(tmp_path / "media"), tool_call_id="v2"
    )
    assert again.content[1].read() == media_of(history)[0].read()  # type: ignore[union-attr]
    # What the model got wrong comes back as an error result it can read, never an exception.
    assert mb.view_media("sha256:" + "0" * 16, store, tool_call_id="v3").is_error
    assert mb.view_media("the first screenshot", store, tool_call_id="v4").is_error


def test_drop_keeps_every_result_with_a_note() -> None:
    history = browser_history(6)
    fitted = mb.fit_session(history, "bedrock", keep_last_media=2, older="drop", step=1)
    assert tool_ids(fitted) == tool_ids(history)
    result = fitted[3].content[0]
    assert isinstance(result, mb.ToolResultBlock)
    assert result.content == [mb.TextBlock(text="[image from tool call c0 removed]")]
    assert [e.became for e in fitted.report.evicted] == ["dropped"] * 4
    assert len(media_of(fitted)) == 2


def test_a_budget_the_kept_media_cannot_meet_raises() -> None:
    history = browser_history(10)
    with pytest.raises(mb.DoesNotFitError, match="max_tokens=500"):
        mb.fit_session(history, "anthropic", keep_last_media=4, max_tokens=500)


def test_a_tight_budget_evicts_in_smaller_steps_and_more_references() -> None:
    history = list(history_200())
    loose = mb.fit_session(history, "anthropic", keep_last_media=KEEP)
    tight = mb.fit_session(history, "anthropic", keep_last_media=KEEP, max_tokens=8_000)
    assert tight.report.tokens_after <= 8_000 < loose.report.tokens_after
    assert tight.report.kept == KEEP
    assert tight.report.step < 8
    kinds = {e.became for e in tight.report.evicted}
    assert "reference" in kinds


def test_anthropic_keeps_at_most_20_images_when_a_kept_one_is_over_2000_px() -> None:
    history = browser_history(30)
    big = mb.ImageBlock.from_bytes(screenshot(999, (2400, 300)))
    last = history[-1].content[0]
    assert isinstance(last, mb.ToolResultBlock)
    history[-1] = history[-1].model_copy(
        update={"content": [last.model_copy(update={"content": [big]})]}
    )
    fitted = mb.fit_session(history, "anthropic", keep_last_media=3)
    sent = media_of(fitted)
    # 20 at most, room kept for the 3 + 7 a step may send whole, so the cut does not move
    # every turn: 6 whole (30 - 3 rounded down to a step of 8 leaves 6), 10 thumbnails.
    assert len(sent) == 16
    assert sent[-1].read() == big.read()
    reasons = {e.reason for e in fitted.report.evicted if e.became == "reference"}
    assert reasons == {
        "older than the thumbnails anthropic's 20 images per request leave room for "
        "(10 may be sent whole)"
    }
    plain = mb.fit_session(browser_history(30), "anthropic", keep_last_media=3)
    assert len(media_of(plain)) == 30  # no big image: 100 images allowed


def test_media_a_provider_caps_are_cut_from_the_oldest_kept() -> None:
    history = browser_history(10)
    fitted = mb.fit_session(history, "groq", keep_last_media=8)
    assert fitted.report.kept == 5  # Groq takes 5 images per request
    assert [b.read() for b in media_of(fitted)] == [b.read() for b in media_of(history)[5:]]
    reasons = [e.reason for e in fitted.report.evicted]
    assert reasons == ["past groq's 5 images per request"] * 5


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("keep_last_media", -1),
        ("keep_last_media", True),
        ("older", "blur"),
        ("max_tokens", 0),
        ("step", 0),
        ("thumbnail_side", 4),
        ("store", object()),
    ],
)
def test_bad_options_raise_invalid_option_error(option: str, value: Any) -> None:
    with pytest.raises(mb.InvalidOptionError, match=option):
        mb.fit_session(browser_history(2), "anthropic", **{option: value})


def test_histories_are_read_as_every_entry_point_reads_messages() -> None:
    """The one rule (`mediablocks.message_input`): a string is one user message; what is not
    message-like is a `DecodeError` naming fit_session and the item."""
    (only,) = mb.fit_session("hello", "anthropic")
    assert isinstance(only, mb.UserMessage)
    assert only.text == "hello"
    with pytest.raises(mb.DecodeError, match="fit_session: expected messages, not a int"):
        mb.fit_session(42, "anthropic")  # type: ignore[arg-type]
    with pytest.raises(mb.DecodeError, match="fit_session: message 0 is a int"):
        mb.fit_session([42], "anthropic")  # type: ignore[list-item]


def test_images_that_are_not_thumbnailable_become_references() -> None:
    bmp = io.BytesIO()
    Image.new("RGB", (600, 400), "teal").save(bmp, "BMP")
    history = [
        mb.UserMessage(content=[mb.TextBlock(text="a"), mb.ImageBlock.from_bytes(bmp.getvalue())]),
        mb.UserMessage(content=[mb.ImageBlock.from_url("https://example.com/a.png")]),
        *browser_history(3)[2:],
    ]
    fitted = mb.fit_session(history, "anthropic", keep_last_media=2, step=1)
    first, second = fitted.report.evicted[:2]
    assert first.became == "reference"
    assert "no thumbnail" in first.reason
    assert second.became == "reference"
    assert second.sha256 is None
    assert fitted[0].content[1] == mb.TextBlock(
        text=f"[image sha256:{first.sha256[:16]}… from message 0, not stored]"  # type: ignore[index]
    )
    assert fitted[1].content == [mb.TextBlock(text="[earlier image from message 1, not stored]")]
    assert fitted.report.unestimated == 1


# -- properties ------------------------------------------------------------------------------

_POOL = [screenshot(n, (48, 30)) for n in range(6)]


@st.composite
def histories(draw: st.DrawFn) -> list[mb.Message]:
    messages: list[mb.Message] = [mb.UserMessage.text("go")]
    for number in range(draw(st.integers(0, 25))):
        media = [
            mb.ImageBlock.from_bytes(_POOL[draw(st.integers(0, 5))])
            for _ in range(draw(st.integers(0, 3)))
        ]
        if draw(st.booleans()):
            call = f"t{number}"
            messages.append(
                mb.AssistantMessage(content=[mb.ToolCallBlock(id=call, name="look", args={})])
            )
            content: list[Any] = [mb.TextBlock(text="ok"), *media]
            messages.append(
                mb.ToolMessage(content=[mb.ToolResultBlock(tool_call_id=call, content=content)])
            )
        else:
            messages.append(mb.UserMessage(content=[mb.TextBlock(text=str(number)), *media]))
    return messages


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    histories(),
    st.integers(0, 6),
    st.integers(1, 9),
    st.sampled_from(["thumbnail", "reference", "drop"]),
    st.sampled_from(["anthropic", "bedrock", "openai-chat", "gemini"]),
)
def test_any_history_keeps_its_last_media_pairs_and_bytes(
    history: list[mb.Message], keep: int, step: int, older: str, provider: str
) -> None:
    fitted = mb.fit_session(history, provider, keep_last_media=keep, step=step, older=older)  # type: ignore[arg-type]
    report = fitted.report
    limit = mb.limits_for(provider).max_images or report.media
    whole = min(keep, report.media, limit)
    originals = media_of(history)
    sent = [b for b in media_of(fitted) if "thumbnail_of" not in b.metadata]
    assert report.kept >= whole
    assert [b.read() for b in sent[len(sent) - whole :]] == [
        b.read() for b in originals[len(originals) - whole :]
    ]
    assert len(media_of(fitted)) <= limit
    assert tool_ids(fitted) == tool_ids(history)
    assert len(fitted) == len(history)
    assert mb.estimate_tokens(fitted, provider) == report.tokens_after
    again = mb.fit_session(history, provider, keep_last_media=keep, step=step, older=older)  # type: ignore[arg-type]
    assert mb.dump_messages(again) == mb.dump_messages(fitted)


def test_a_thumbnail_that_saves_nothing_is_not_made() -> None:
    # Gemini counts 258 tokens for any image up to 384 px and for one 768 px tile: a 640x400
    # screenshot costs what its thumbnail would, so older ones become references.
    fitted = mb.fit_session(browser_history(6), "gemini", keep_last_media=2, step=1)
    reasons = {e.reason for e in fitted.report.evicted}
    assert reasons == {"a thumbnail costs as many tokens as the image at gemini (258)"}
    assert {e.became for e in fitted.report.evicted} == {"reference"}
