"""``/docs``: the OpenAPI document as one self-contained HTML page.

No scripts, fonts or styles from elsewhere: the page must work offline and
behind strict content security policies, so it is rendered here, once.
"""

from __future__ import annotations

import json
from functools import cache
from html import escape
from typing import Any

from .openapi import spec

STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{margin-bottom:0}h2{margin-top:2.5rem;border-bottom:1px solid #ccc}
.op{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
.m{display:inline-block;min-width:3.5rem;font-weight:bold;text-transform:uppercase}
.get{color:#0a6}.post{color:#05c}code,pre{font:13px ui-monospace,monospace}
pre{background:#f6f6f6;padding:.6rem;overflow:auto;border-radius:4px}
table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}
td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}
.op,p,li{overflow-wrap:anywhere}
"""


def _ref_link(ref: str) -> str:
    name = ref.rsplit("/", 1)[-1]
    return f'<a href="#schema-{escape(name)}">{escape(name)}</a>'


def _schema_of(content: dict[str, Any]) -> str:
    parts = []
    for media, body in content.items():
        ref = body.get("schema", {}).get("$ref")
        target = _ref_link(ref) if ref else ""
        parts.append(f"<code>{escape(media)}</code> {target}")
    return "; ".join(parts)


def _operation(path: str, method: str, op: dict[str, Any]) -> str:
    rows = []
    for p in op.get("parameters", []):
        schema = escape(json.dumps(p.get("schema", {})))
        rows.append(
            f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
            f"<td><code>{schema}</code></td></tr>"
        )
    params = (
        "<table><tr><th>parameter</th><th>in</th><th>schema</th></tr>" + "".join(rows) + "</table>"
        if rows
        else ""
    )
    request = ""
    if "requestBody" in op:
        request = f"<p>Body: {_schema_of(op['requestBody']['content'])}</p>"
    auth = {
        (): "no token",
        ("seatToken",): "seat token required",
    }.get(tuple(k for s in op.get("security", []) for k in s), "seat token optional")
    responses = "".join(
        f"<li><b>{escape(code)}</b> {escape(r.get('description', ''))} "
        f"{_schema_of(r.get('content', {}))}</li>"
        for code, r in op["responses"].items()
    )
    return (
        f'<div class="op" id="{escape(op["operationId"])}">'
        f'<span class="m {method}">{method}</span> <code>{escape(path)}</code> — '
        f"{escape(op.get('summary', ''))}<p>{escape(op.get('description', ''))}</p>"
        f"<p><i>{auth}</i></p>{params}{request}<ul>{responses}</ul></div>"
    )


@cache
def page() -> str:
    doc = spec()
    ops = "".join(
        _operation(path, method, op)
        for path, methods in doc["paths"].items()
        for method, op in methods.items()
    )
    schemas = "".join(
        f'<h3 id="schema-{escape(name)}">{escape(name)}</h3>'
        f"<pre>{escape(json.dumps(schema, indent=2))}</pre>"
        for name, schema in doc["components"]["schemas"].items()
    )
    info = doc["info"]
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(info['title'])} API</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(info['title'])} API</h1><p>{escape(info['description'])}</p>"
        '<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>'
        f"<h2>Endpoints</h2>{ops}<h2>Schemas</h2>{schemas}</body></html>"
    )
