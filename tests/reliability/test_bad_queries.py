"""Every query parameter of every endpoint, fed odd strings: never a 5xx.

Numbers written in other scripts' digits (``²``, ``١``, ``５``), signs,
spaces, separators and control characters pass ``str.isdigit()`` or ``int()``
in places; the one strict query parser must refuse them all with a problem
document naming the parameter, and change nothing.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games import GameService

from .conftest import Seated, dump

PROBLEM = "application/problem+json"
STREAM = {"Accept": "application/x-ndjson"}

unicode_digits = st.text(st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=6)
odd = st.one_of(
    unicode_digits,
    st.text(max_size=30),
    st.from_regex(r"[-+ ]?[0-9_.eE ]{1,25}", fullmatch=True),
    st.builds(lambda a, b: f"{a}:{b}", unicode_digits, st.text(max_size=10)),
    st.sampled_from(["", " ", "0x10", "1e3", "١٢", "²:abc", "1:", ":abc", "%00", "NaN", "∞"]),
)
PARAMETERS = [
    ("/games", None, "game"),
    ("/games", None, "status"),
    ("/games", None, "limit"),
    ("/games", None, "cursor"),
    ("/games/{gid}/events", None, "after"),
    ("/games/{gid}/events", None, "limit"),
    ("/games/{gid}/events", STREAM, "after"),
]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=st.sampled_from(PARAMETERS), value=odd)
def test_no_query_value_gives_a_5xx(
    murlan: Seated,
    client: FlaskClient,
    service: GameService,
    case: tuple[str, object, str],
    value: str,
) -> None:
    path, headers, name = case
    url = path.format(gid=murlan.game_id) + "?" + urlencode({name: value})
    before = dump(service)
    r = client.get(url, headers=headers or {}, buffered=False)
    try:
        assert r.status_code < 500, (url, r.status_code)
        if r.status_code >= 400:  # a live stream (a 200) is left unread: it never ends
            assert r.mimetype == PROBLEM
            assert r.get_json()["field"] == name, r.get_data(as_text=True)
    finally:
        r.close()
    assert dump(service) == before
