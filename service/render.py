"""A replay document as text a person reads: deal by deal, move by move."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .engines.cards import CardError, parse_card

SKIP_FIELDS = {"type", "schema_version", "version", "at", "move", "seat", "hands"}


def pretty(token: object) -> str:
    if not isinstance(token, str):
        return str(token)
    if token == "??":
        return "\u2022\u2022"
    try:
        return parse_card(token).pretty()
    except CardError:
        return token


def pretty_value(value: Any) -> str:
    if isinstance(value, str) and len(value) in (2, 3):
        return pretty(value)
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(pretty_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {pretty_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def describe_move(move: Mapping[str, Any]) -> str:
    parts = [str(move.get("action", "?"))]
    for key, value in move.items():
        if key != "action":
            parts.append(pretty_value(value) if key in ("cards", "card", "groups") else f"{value}")
    return " ".join(parts)


def render_replay(doc: Mapping[str, Any], at: int | None = None) -> str:
    """The document as lines of text, stopping after version ``at`` when given."""
    names = {s["seat"]: s.get("name") or f"seat {s['seat']}" for s in doc.get("seats", [])}
    lines = [
        f"{doc.get('game', '?')} game {doc.get('game_id', '?')} ({doc.get('status', '?')})",
        f"options: {dict(doc.get('options') or {})}",
        "seats: " + ", ".join(f"{seat}={name}" for seat, name in sorted(names.items())),
        f"commitment: {doc.get('commitment')}",
        f"server seed: {doc.get('server_seed') or 'not revealed yet'}",
        "",
    ]
    deals = {d["deal"]: d for d in doc.get("deals", [])}
    for entry in doc.get("events", []):
        version = entry.get("version")
        if at is not None and isinstance(version, int) and version > at:
            lines.append(f"… stopped after version {at}")
            break
        kind = entry.get("type", "?")
        if "hands" in entry and "deal" in entry:
            deal = deals.get(entry["deal"], entry)
            lines.append(
                f"— deal {entry['deal']} (dealer: {names.get(entry.get('dealer'), '?')}) —"
            )
            hands = deal.get("hands") or {}
            if isinstance(entry["hands"], list):
                hands = {str(i): h for i, h in enumerate(entry["hands"]) if h}
            for seat, hand in sorted(hands.items(), key=lambda kv: int(kv[0])):
                cards = " ".join(pretty(c) for c in hand)
                lines.append(f"  {names.get(int(seat), seat):>12}: {cards}")
            extras = {
                k: v
                for k, v in entry.items()
                if k not in SKIP_FIELDS and k not in ("deal", "dealer")
            }
            if extras:
                lines.append("  " + ", ".join(f"{k}: {pretty_value(v)}" for k, v in extras.items()))
            continue
        if "move" in entry:
            who = names.get(entry.get("seat"), entry.get("seat"))
            lines.append(f"v{version:<4} {who}: {describe_move(entry['move'])}")
            continue
        details = ", ".join(
            f"{k}: {pretty_value(v)}" for k, v in entry.items() if k not in SKIP_FIELDS
        )
        seat = entry.get("seat")
        who = f" {names.get(seat, seat)}" if seat is not None else ""
        lines.append(f"v{version:<4} {kind}{who}" + (f" ({details})" if details else ""))
    result = doc.get("result")
    if result and at is None:
        lines += ["", f"result: {pretty_value(result)}"]
    return "\n".join(lines)
