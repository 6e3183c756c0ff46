"""Which Redis errors are refused writes, and why (service/store/refusals.py)."""

from __future__ import annotations

import pytest
import redis

from service.store.refusals import RETRY_AFTER_S, refusal_reason

E = redis.exceptions


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (E.OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), "maxmemory"),
        # raised by redis.call inside the append script: the server's code is kept
        (
            E.OutOfMemoryError(
                "command not allowed when used memory > 'maxmemory'. script: acd0, on "
                "@user_script:85."
            ),
            "maxmemory",
        ),
        # a pipeline's command, as redis-py words it
        (
            E.ResponseError(
                "Command # 1 (SET k v) of pipeline caused error: OOM command not allowed "
                "when used memory > 'maxmemory'."
            ),
            "maxmemory",
        ),
        (
            E.ResponseError(
                "MISCONF Redis is configured to save RDB snapshots, but it's currently "
                "unable to persist to disk."
            ),
            "persistence",
        ),
        (E.ResponseError("MISCONF Errors writing to the AOF file: No space left"), "persistence"),
        (E.ReadOnlyError("You can't write against a read only replica."), "replica"),
        (E.ResponseError("WRONGTYPE Operation against a key holding the wrong kind"), None),
        (E.ConnectionError("Connection refused"), None),
        (ValueError("MISCONF in a message that is not Redis's"), None),
    ],
)
def test_refusals_are_named(error: BaseException, reason: str | None) -> None:
    assert refusal_reason(error) == reason


def test_every_reason_says_when_to_come_back() -> None:
    assert set(RETRY_AFTER_S) == {"maxmemory", "persistence", "replica"}
    assert all(0 < s <= 60 for s in RETRY_AFTER_S.values())
