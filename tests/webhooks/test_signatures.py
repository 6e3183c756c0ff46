"""The documented verifier (``service.webhooks.receiver.verify_signature``) and
the example receiver, against deliveries signed as the workers sign them."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import re
import threading
import time
from pathlib import Path

import httpx
from hypothesis import given
from hypothesis import strategies as st

from service.webhooks.receiver import serve, signature_header, verify_signature

SECRET = "whsec_test-secret"
BODY = b'{"event":"turn_started","game_id":"g1","seat":2,"url":"https://cardroom.example/table/g1"}'
NOW = 1_800_000_000
DOCS = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def test_a_signed_body_verifies() -> None:
    header = signature_header(SECRET, NOW, BODY)
    assert re.fullmatch(r"t=1800000000,v1=[0-9a-f]{64}", header)
    assert verify_signature(SECRET, header, BODY, now=NOW)
    assert verify_signature(SECRET, header, BODY, now=NOW + 300)


def test_a_tampered_body_a_wrong_secret_and_an_old_timestamp_are_refused() -> None:
    header = signature_header(SECRET, NOW, BODY)
    assert not verify_signature(SECRET, header, BODY.replace(b'"seat":2', b'"seat":3'), now=NOW)
    assert not verify_signature(SECRET, header, BODY + b" ", now=NOW)
    assert not verify_signature("whsec_another", header, BODY, now=NOW)
    assert not verify_signature(SECRET, header, BODY, now=NOW + 301)
    assert not verify_signature(SECRET, header, BODY, now=NOW - 301)
    reparsed = json.dumps(json.loads(BODY)).encode()  # parsed and written again: other bytes
    assert not verify_signature(SECRET, header, reparsed, now=NOW)


def test_the_signature_is_hmac_sha256_of_the_timestamp_a_dot_and_the_raw_body() -> None:
    digest = hmac.new(SECRET.encode(), b"1800000000." + BODY, hashlib.sha256).hexdigest()
    assert signature_header(SECRET, NOW, BODY) == f"t={NOW},v1={digest}"


@given(st.text(max_size=200))
def test_any_header_is_refused_or_verified_never_an_error(header: str) -> None:
    assert verify_signature(SECRET, header, BODY, now=NOW) in (True, False)
    assert not verify_signature(SECRET, header, BODY, now=NOW) or "v1=" in header


def test_the_verifier_in_the_docs_works_as_documented() -> None:
    """docs/webhooks.md's few lines of Python, run against a delivery and its tamperings."""
    text = DOCS.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    namespace: dict[str, object] = {}
    exec(code.group(1), namespace)
    verify = namespace["verify"]
    assert callable(verify)
    now = int(time.time())
    header = signature_header(SECRET, now, BODY)
    assert verify(SECRET, header, BODY)
    assert not verify(SECRET, header, BODY + b"x")
    assert not verify("whsec_other", header, BODY)
    assert not verify(SECRET, signature_header(SECRET, now - 301, BODY), BODY)
    assert "300" in text


def test_the_example_receiver_prints_your_turn_and_refuses_the_unsigned() -> None:
    out = io.StringIO()
    server = serve(SECRET, "127.0.0.1", 0, out)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        now = int(time.time())
        ok = httpx.post(
            url, content=BODY, headers={"Cardroom-Signature": signature_header(SECRET, now, BODY)}
        )
        assert ok.status_code == 204
        bad = httpx.post(
            url, content=BODY, headers={"Cardroom-Signature": signature_header("x", now, BODY)}
        )
        assert bad.status_code == 400
        assert httpx.post(url, content=BODY).status_code == 400
    finally:
        server.shutdown()
        server.server_close()
    assert out.getvalue() == "your turn at https://cardroom.example/table/g1 (seat 2)\n"
