"""Outbound safety: which URLs a subscription may name, and where an attempt may
connect. Names resolve through a stub (never DNS), and every connection this
process tries to anything but loopback fails the test (the rig's guard)."""

from __future__ import annotations

import ipaddress
import string
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.errors import WebhookUrlRefused
from service.webhooks.urls import Policy, check

from .conftest import Rig, make_rig
from .support import (
    Guard,
    Receiver,
    bearer,
    eventually,
    guarded_outbound,
    stub_resolver,
    take_seats,
)

REFUSED = [
    ("http://127.0.0.1:9/hook", "scheme"),
    ("https://127.0.0.1/hook", "address"),
    ("https://10.0.0.1/hook", "address"),
    ("https://169.254.169.254/latest/meta-data/", "address"),
    ("https://[::1]/hook", "address"),
    ("https://[::ffff:10.0.0.1]/hook", "address"),
    ("https://[fd00:ec2::254]/", "address"),
    ("https://100.64.0.1/", "address"),
    ("https://0.0.0.0/", "address"),
    ("https://private.test/hook", "address"),
    ("https://metadata.test/", "address"),
    ("https://mixed.test/hook", "address"),
    ("https://nowhere.test/hook", "unresolvable"),
    ("http://public.test/hook", "scheme"),
    ("ftp://public.test/hook", "scheme"),
    ("https://user:pw@public.test/hook", "credentials"),
    ("https:///hook", "malformed"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_unsafe_urls_are_refused_for_their_reason(url: str, reason: str) -> None:
    with pytest.raises(WebhookUrlRefused) as refused:
        check(url, Policy(), stub_resolver)
    assert refused.value.reason == reason


def test_a_public_https_url_is_taken_with_the_address_to_connect_to() -> None:
    target = check("https://public.test:8443/in?x=1", Policy(), stub_resolver)
    assert (target.address, target.port, target.path) == ("93.184.216.34", 8443, "/in?x=1")
    assert target.connect_url == "https://93.184.216.34:8443/in?x=1"
    assert target.host_header == "public.test:8443"


def test_loopback_only_where_the_operator_allows_it() -> None:
    allowed = Policy(http_loopback=True)
    assert check("http://127.0.0.1:9/h", allowed, stub_resolver).address == "127.0.0.1"
    assert check("http://receiver.test:9/h", allowed, stub_resolver).address == "127.0.0.1"
    assert check("http://[::1]:9/h", allowed, stub_resolver).address == "::1"
    for url in ("http://10.0.0.1/", "https://169.254.169.254/", "http://public.test/"):
        with pytest.raises(WebhookUrlRefused):
            check(url, allowed, stub_resolver)


def test_the_operators_allow_and_deny_lists() -> None:
    deny = Policy(deny=("public.test",))
    with pytest.raises(WebhookUrlRefused) as refused:
        check("https://public.test/", deny, stub_resolver)
    assert refused.value.reason == "denied"
    with pytest.raises(WebhookUrlRefused) as refused:
        check("https://93.184.216.34/", Policy(deny=("93.184.216.0/24",)), stub_resolver)
    assert refused.value.reason == "denied"
    allow = Policy(allow=(".example.org",))
    with pytest.raises(WebhookUrlRefused) as refused:
        check("https://public.test/", allow, stub_resolver)
    assert refused.value.reason == "not_allowed"
    # a network the operator names may be private (a hook runner on the same LAN)
    lan = Policy(allow=("10.1.2.0/24",))
    assert check("https://private.test/", lan, stub_resolver).address == "10.1.2.3"
    with pytest.raises(WebhookUrlRefused):
        check("https://10.0.0.1/", lan, stub_resolver)


@given(st.text(alphabet=string.printable, max_size=80))
def test_any_text_is_a_target_or_refused_never_an_error(url: str) -> None:
    try:
        target = check(url, Policy(), stub_resolver)
    except WebhookUrlRefused:
        return
    assert target.scheme == "https" and ipaddress.ip_address(target.address).is_global


@pytest.fixture(scope="module")
def seat(rig: Rig) -> tuple[str, str]:
    r = rig.client.post("/games", json={"game": "azi", "seats": 2, "options": {}})
    game_id = r.get_json()["game_id"]
    return game_id, take_seats(rig.client, game_id, 1)[0]


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://private.test/hook",
        "http://public.test/hook",
    ],
)
def test_the_api_answers_422_naming_the_reason(rig: Rig, seat: tuple[str, str], url: str) -> None:
    game_id, token = seat
    r = rig.client.post(
        f"/games/{game_id}/webhooks",
        json={"url": url, "events": ["turn_started"]},
        headers=bearer(token),
    )
    assert r.status_code == 422, r.get_json()
    problem = r.get_json()
    assert problem["type"].endswith("/webhook-url-refused")
    assert problem["field"] == "url" and problem["reason"] in {"address", "scheme"}
    listed = rig.client.get(f"/games/{game_id}/webhooks", headers=bearer(token)).get_json()
    assert listed["items"] == []  # nothing was made


@pytest.fixture(scope="module")
def strict() -> Iterator[Rig]:
    """The app as deployed: loopback not allowed."""
    yield from make_rig(webhook_http_loopback=False)


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/hook", "https://127.0.0.1/hook", "https://[::1]/hook"]
)
def test_loopback_is_refused_unless_allowed(strict: Rig, url: str) -> None:
    strict.runtime.outbound = guarded_outbound(strict.guard, http_loopback=False)
    r = strict.client.post("/games", json={"game": "azi", "seats": 2, "options": {}})
    game_id = r.get_json()["game_id"]
    token = take_seats(strict.client, game_id, 1)[0]
    r = strict.client.post(
        f"/games/{game_id}/webhooks",
        json={"url": url, "events": ["turn_started"]},
        headers=bearer(token),
    )
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["type"].endswith("/webhook-url-refused")
    assert r.get_json()["reason"] in {"scheme", "address"}


def test_a_redirect_is_not_followed(receiver: Receiver) -> None:
    guard = Guard()
    outbound = guarded_outbound(guard)
    receiver.answers.append((302, {"Location": "http://10.0.0.1/steal"}))
    attempt = outbound.send(receiver.url(), b"{}", {})
    assert attempt.status == 302 and not attempt.ok
    assert attempt.error == "redirect not followed"
    assert len(receiver.hits) == 1 and guard.refused == []
    outbound.close()


def test_a_followed_redirect_is_checked_before_connecting(receiver: Receiver) -> None:
    guard = Guard()
    outbound = guarded_outbound(guard)
    outbound.follow_redirects = 2
    receiver.answers.append((307, {"Location": "https://169.254.169.254/latest/"}))
    attempt = outbound.send(receiver.url(), b"{}", {})
    assert not attempt.ok and attempt.error == "blocked: address"
    receiver.answers.append((307, {"Location": "http://private.test/x"}))
    attempt = outbound.send(receiver.url(), b"{}", {})
    assert not attempt.ok and (attempt.error or "").startswith("blocked")
    receiver.answers.append((307, {"Location": "/second"}))
    attempt = outbound.send(receiver.url(), b"{}", {})
    assert attempt.ok and receiver.hits[-1].path == "/second"  # a safe one is followed
    assert guard.refused == []
    outbound.close()


def test_a_name_that_turns_private_after_subscribing_is_not_called(
    rig: Rig, receiver: Receiver
) -> None:
    """The URL is checked again before each attempt (DNS rebinding)."""
    from . import support

    support.NAMES["rebind.test"] = ["127.0.0.1"]
    try:
        r = rig.client.post("/games", json={"game": "azi", "seats": 2, "options": {}})
        game_id = r.get_json()["game_id"]
        tokens = take_seats(rig.client, game_id, 1)
        url = f"http://rebind.test:{receiver.port}/hook"
        r = rig.client.post(
            f"/games/{game_id}/webhooks",
            json={"url": url, "events": ["turn_started", "hand_ended"]},
            headers=bearer(tokens[0]),
        )
        assert r.status_code == 201
        hook = r.get_json()["id"]
        support.NAMES["rebind.test"] = ["10.0.0.7"]
        tokens += take_seats(rig.client, game_id, 1)

        def attempted() -> list[dict[str, object]]:
            items = rig.client.get(
                f"/games/{game_id}/webhooks/{hook}/deliveries", headers=bearer(tokens[0])
            ).get_json()["items"]
            return [a for d in items for a in d["attempts"]]

        # the seat to act first is drawn: make seat 0 get a delivery by folding if need be
        view = rig.client.get(f"/games/{game_id}").get_json()
        while not view["to_act"]:
            rig.wait(game_id, view["version"])
            view = rig.client.get(f"/games/{game_id}").get_json()
        if view["to_act"] == [1]:
            mine = rig.client.get(f"/games/{game_id}", headers=bearer(tokens[1])).get_json()
            fold = next(m for m in mine["legal_moves"] if m.get("action") == "fold")
            rig.client.post(
                f"/games/{game_id}/moves", json={"move": fold}, headers=bearer(tokens[1])
            ).close()
        eventually(lambda: bool(attempted()), 10, "an attempt logged")
        assert str(attempted()[0]["error"]).startswith("blocked")  # http to 10.0.0.7: refused
        assert receiver.hits == []
    finally:
        support.NAMES.pop("rebind.test", None)
