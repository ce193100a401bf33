from __future__ import annotations

import asyncio
import threading

import pytest

import mediablocks as mb


def test_defaults_are_safe() -> None:
    policy = mb.FetchPolicy()
    assert policy.allow_private is False
    assert policy.allowed_schemes == frozenset({"http", "https"})
    assert policy.max_bytes == 50 * 1024 * 1024
    assert policy.max_redirects == 5


def test_policy_is_immutable_and_replace_makes_a_copy() -> None:
    policy = mb.FetchPolicy()
    wider = policy.replace(allow_private=True, blocked_hosts=["Evil.example"])
    assert policy.allow_private is False
    assert wider.allow_private is True
    assert wider.blocked_hosts == frozenset({"evil.example"})
    with pytest.raises(AttributeError):
        policy.max_bytes = 1  # type: ignore[misc]


@pytest.mark.parametrize("bad", [{"max_bytes": 0}, {"timeout": -1.0}, {"max_redirects": -1}])
def test_nonsense_limits_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="FetchPolicy"):
        mb.FetchPolicy(**bad)  # type: ignore[arg-type]


def test_use_policy_sets_a_scoped_default() -> None:
    small = mb.FetchPolicy(max_bytes=10)
    assert mb.current_policy().max_bytes != 10
    with mb.use_policy(small):
        assert mb.current_policy() is small
        assert mb.current_policy(mb.FetchPolicy()) is not small  # per call wins
    assert mb.current_policy().max_bytes != 10


def test_scoped_policy_does_not_leak_into_other_threads_or_tasks() -> None:
    seen: list[int] = []
    with mb.use_policy(mb.FetchPolicy(max_bytes=10)):
        thread = threading.Thread(target=lambda: seen.append(mb.current_policy().max_bytes))
        thread.start()
        thread.join()
    assert seen == [mb.FetchPolicy().max_bytes]

    async def scoped(limit: int) -> int:
        with mb.use_policy(mb.FetchPolicy(max_bytes=limit)):
            await asyncio.sleep(0)
            return mb.current_policy().max_bytes

    async def both() -> list[int]:
        return list(await asyncio.gather(scoped(1), scoped(2)))

    assert asyncio.run(both()) == [1, 2]
