"""The load test's rate check (benchmarks/gateway_load.py) must be able to fail:
it bounds each window of backend starts by the reservations' start times, with no
slack beyond the refunds it saw."""

from __future__ import annotations

from benchmarks.gateway_load import RATE, _rate_excess

CAPACITY = RATE["requests"]
PERIOD = RATE["perSeconds"] / RATE["requests"]  # seconds per token


def _events(
    calls: list[tuple[float, float]], refunds: tuple[float, ...] = ()
) -> list[tuple[str, str, str, float, str]]:
    events = []
    for n, (reserved, started) in enumerate(calls):
        events.append(("reserved", "notify", f"k{n}", reserved, "gw"))
        events.append(("start", "notify", f"k{n}", started, "gw"))
    events += [("refund", "notify", "-", at, "gw") for at in refunds]
    return events


def test_a_burst_of_capacity_then_one_per_period_is_within_the_bucket() -> None:
    burst = [(0.0, 0.01)] * CAPACITY
    steady = [(0.0 + PERIOD * n, PERIOD * n + 0.01) for n in range(1, 10)]
    assert _rate_excess(_events(burst + steady)) <= 1e-6


def test_one_call_more_than_the_bucket_allows_is_caught() -> None:
    burst = [(0.0, 0.0)] * (CAPACITY + 1)
    assert _rate_excess(_events(burst)) >= 1 - 1e-6


def test_a_refund_allows_one_more_call() -> None:
    burst = [(0.0, 0.0)] * (CAPACITY + 1)
    assert _rate_excess(_events(burst, refunds=(0.0,))) <= 1e-6
    assert _rate_excess(_events(burst, refunds=(0.5,))) >= 1 - 1e-6  # refunded later


def test_a_slow_path_from_reservation_to_start_is_not_counted_against_the_bucket() -> None:
    # The first call reserved its token a whole period before it started; the
    # starts alone look one call over, the reservations show the bucket held.
    calls = [(0.0, PERIOD)] + [(PERIOD, PERIOD)] * CAPACITY
    assert _rate_excess(_events(calls)) <= 1e-6
    # The same starts with reservations as late as the starts are one over.
    assert _rate_excess(_events([(PERIOD, PERIOD)] * (CAPACITY + 1))) >= 1 - 1e-6
