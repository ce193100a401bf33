"""The round-trip rates of the recorded traffic, per provider and kind.

Run ``python -m tests.providers.traffic.rates`` (``-v`` lists every body that is not exact).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict

from tests.providers.traffic.roundtrip import Outcome, cases, run

STATUSES = ("exact", "equivalent", "refused", "lossy", "escape")


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    table: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for case in cases():
        outcome: Outcome = run(case)
        status = outcome.status
        table[(case.provider, case.kind)][status] += 1
        if verbose and status != "exact":
            print(f"{status:10} {case.name}  {outcome.detail[:200]}")
    print(f"{'provider':18} {'kind':8} {'total':>5} " + " ".join(f"{s:>10}" for s in STATUSES))
    for (provider, kind), counts in sorted(table.items()):
        total = sum(counts.values())
        cells = " ".join(f"{counts[s]:>10}" for s in STATUSES)
        print(f"{provider:18} {kind:8} {total:>5} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
