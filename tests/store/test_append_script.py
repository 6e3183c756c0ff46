"""The append's value object and the append script agree on every argument by name.

:class:`service.store.append.Append` builds the script's ``ARGV`` from
:data:`service.store.append.ARGS`; the script's header names each ``ARGV[n]``.
If either side gained, lost or reordered an argument, these tests fail.
"""

from __future__ import annotations

import re

import pytest

from service.engines import table
from service.store import keys, lua
from service.store.append import ARGS, Append, Dispatch, Record, Settings

HEADER = re.compile(r"^-- ARGV\[(\d+)\] (\w+):", re.M)
SETTINGS = Settings(record_ttl_ms=1000, marker_ttl_ms=500, counts_lag=True, projects=True)


def test_the_scripts_header_names_the_arguments_in_the_value_objects_order() -> None:
    named = [(int(n), name) for n, name in HEADER.findall(lua.APPEND)]
    assert [n for n, _ in named] == list(range(1, len(ARGS) + 1))
    assert tuple(name for _, name in named) == ARGS


def test_the_events_follow_the_named_arguments_four_each() -> None:
    assert f"for i = {len(ARGS) + 1}, #ARGV, 4 do" in lua.APPEND
    events = [table.TurnTimedOut(seat=0, after_s=1.0), table.TurnTimedOut(seat=1, after_s=2.0)]
    _, args = Append("g1", 3, events=events).script(SETTINGS)
    assert len(args) == len(ARGS) + 4 * len(events)
    assert args[len(ARGS)] == "TurnTimedOut" and args[len(ARGS) + 3] == ""


def test_each_argument_lands_under_its_name() -> None:
    dispatch = Dispatch("pending", ("s0", "s1"), 250, "tok")
    append = Append(
        "g1",
        3,
        events=[table.TurnTimedOut(seat=0, after_s=1.0)],
        record=Record("k", "answer"),
        last_entry="3-17",
        dispatch=dispatch,
    )
    script_keys, args = append.script(SETTINGS)
    got = dict(zip(ARGS, args, strict=False))
    assert got["expected_version"] == 3 and got["game_id"] == "g1"
    assert got["record_ttl_ms"] == 1000 and got["marker_ttl_ms"] == 500
    assert got["keep_response"] == "1" and got["response"] == "answer"
    assert got["count_lag"] == "1" and got["last_entry"] == "3-17"
    assert (got["drain_slots"], got["slot_lease_ms"], got["slot_token"]) == (2, 250, "tok")
    assert got["state"] == ""  # no projection asked for
    assert script_keys == [
        keys.events("g1"),
        keys.followup("g1"),
        keys.idem("g1", "k"),
        keys.LAG,
        keys.LAG_TOTAL,
        "pending",
        "s0",
        "s1",
    ]


def test_an_import_keeps_its_times_and_counts_no_lag() -> None:
    append = Append("g1", 0, entries=[("GameCreated", 1, b"{}", 42)])
    script_keys, args = append.script(SETTINGS)
    assert dict(zip(ARGS, args, strict=False))["count_lag"] == "0"
    assert args[len(ARGS) :] == ["GameCreated", 1, b"{}", 42]
    assert script_keys == [keys.events("g1"), keys.followup("g1")]


@pytest.mark.parametrize(
    "append",
    [
        Append("g1", 1),
        Append("g1", -1, events=[table.TurnTimedOut(seat=0, after_s=1.0)]),
        Append(
            "g1",
            1,
            events=[table.TurnTimedOut(seat=0, after_s=1.0)],
            dispatch=Dispatch("p", (), 1, "t"),
        ),
    ],
)
def test_an_append_that_could_never_be_right_is_refused(append: Append) -> None:
    with pytest.raises(ValueError):
        append.script(SETTINGS)


def test_the_hooks_notices_and_keys_come_last_and_only_when_asked_for() -> None:
    from service.store.append import Hooks

    event = table.TurnTimedOut(seat=0, after_s=1.0)
    notices = ("turn_started:1:60000", "hand_ended:*:")
    append = Append("g1", 3, events=[event], hooks=Hooks(notices))
    script_keys, args = append.script(SETTINGS)
    got = dict(zip(ARGS, args, strict=False))
    assert got["hook_notices"] == "turn_started:1:60000 hand_ended:*:"
    assert got["hook_due"] == "0"  # SETTINGS do not schedule hooks
    assert script_keys[-3:] == [keys.hooks("g1"), keys.deliveries("g1"), keys.delivery_log("g1")]
    scheduling = Settings(1000, 500, counts_lag=True, projects=True, schedules_hooks=True)
    script_keys, args = append.script(scheduling)
    assert dict(zip(ARGS, args, strict=False))["hook_due"] == "1"
    assert script_keys[-1] == keys.HOOKS_DUE
    script_keys, args = Append("g1", 3, events=[event]).script(scheduling)
    assert dict(zip(ARGS, args, strict=False))["hook_notices"] == ""
    assert keys.hooks("g1") not in script_keys
