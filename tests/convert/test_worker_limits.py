"""Each job runs under its own limits: the worker sets only the limits that changed since the
last job (a system call each), so consecutive jobs with the same, then other, then the same
limits again must each see exactly theirs (issue 30: the worker's per-job cost)."""

from __future__ import annotations

import sys

import pytest

from mediablocks import ConversionLimits
from mediablocks.convert import _jobs
from mediablocks.convert.isolation import run_isolated

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no resource limits there")

SMALL = ConversionLimits(memory_bytes=768 << 20, cpu_seconds=30, stack_bytes=4 << 20)
LARGE = ConversionLimits(memory_bytes=1536 << 20, cpu_seconds=90, stack_bytes=16 << 20)


def _seen(limits: ConversionLimits) -> dict[str, int]:
    return run_isolated("limits", _jobs.limits, limits=limits)


@pytest.mark.parametrize("order", [(SMALL, LARGE, SMALL, SMALL), (LARGE, SMALL, SMALL, LARGE)])
def test_every_job_runs_under_its_own_limits(order: tuple[ConversionLimits, ...]) -> None:
    first = run_isolated("facts", _jobs.worker_facts)["pid"]
    for limits in order:  # back to back, the same limits twice in a row among them
        seen = _seen(limits)
        assert seen["memory_bytes"] == limits.memory_bytes
        assert seen["stack_bytes"] == limits.stack_bytes
        # CPU seconds are counted from what the worker used before the job
        assert limits.cpu_seconds is not None
        assert limits.cpu_seconds <= seen["cpu_seconds"] <= limits.cpu_seconds + 60
    # one worker served them all: its limits changed between jobs, not a new worker's
    assert run_isolated("facts", _jobs.worker_facts)["pid"] == first


def test_a_job_without_a_cpu_limit_gets_none_after_one_with_it() -> None:
    import resource

    assert _seen(SMALL)["cpu_seconds"] != resource.RLIM_INFINITY
    unlimited = ConversionLimits(memory_bytes=768 << 20, cpu_seconds=None, stack_bytes=4 << 20)
    hard = run_isolated("limits", _jobs.limits, limits=unlimited)["cpu_seconds"]
    assert hard == resource.getrlimit(resource.RLIMIT_CPU)[1]  # the worker inherits ours
