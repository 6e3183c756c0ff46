"""The web pages' message catalogs: every language has every key and no other, every
message keeps the English placeholders, every key the pages use exists, and every key
exists because a page uses it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "service" / "web" / "static"
I18N = STATIC / "i18n"
LANGUAGES = ("en", "ru", "hu", "bg", "sq", "ne")


def catalog(lang: str) -> dict[str, dict[str, str]]:
    """Area name -> that area's messages."""
    out: dict[str, dict[str, str]] = {}
    for path in sorted((I18N / lang).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, dict), path
        out[path.stem] = data
    return out


def sources() -> str:
    """Every page's script and markup, concatenated (the offline verifier's sources too)."""
    templates = ROOT / "service" / "web" / "templates"
    offline = ROOT / "service" / "web" / "offline"
    files = [
        *STATIC.glob("*.html"),
        *(STATIC / "js").glob("*.js"),
        *templates.glob("*.html"),
        *offline.glob("*.html"),
        *offline.glob("*.js"),
    ]
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(files))


def arguments(message: str) -> set[str]:
    """The names of an ICU message's arguments (`{name}`, `{n, plural, …}`), branches included."""
    names: set[str] = set()
    stack: list[str] = ["text"]  # what each open brace began: an argument or a branch's text
    head: str | None = None  # the argument name being read, until its first comma
    for ch in message:
        if ch == "{":
            stack.append("arg" if stack[-1] == "text" else "text")
            head = "" if stack[-1] == "arg" else None
        elif ch == "}":
            if stack[-1] == "arg" and head is not None:
                names.add(head.strip())
            stack.pop()
            head = None
        elif stack[-1] == "arg" and head is not None:
            if ch == ",":
                names.add(head.strip())
                head = None
            else:
                head += ch
    assert stack == ["text"], f"unbalanced braces in {message!r}"
    return names


EN = catalog("en")


def test_english_has_areas_and_keys_are_prefixed_by_their_area() -> None:
    assert "common" in EN
    for area, messages in EN.items():
        assert messages, area
        wrong = [k for k in messages if not k.startswith(f"{area}.")]
        assert wrong == [], area


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_language_has_every_key_and_no_other(lang: str) -> None:
    theirs = catalog(lang)
    assert sorted(theirs) == sorted(EN), f"{lang}: areas differ from English"
    for area, messages in EN.items():
        missing = sorted(set(messages) - set(theirs[area]))
        extra = sorted(set(theirs[area]) - set(messages))
        assert (missing, extra) == ([], []), f"{lang}/{area}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_messages_keep_the_english_placeholders(lang: str) -> None:
    theirs = catalog(lang)
    for area, messages in EN.items():
        for key, english in messages.items():
            message = theirs.get(area, {}).get(key)
            if message is None:
                continue
            assert isinstance(message, str) and message.strip(), f"{lang} {key}"
            assert arguments(message) == arguments(english), f"{lang} {key}: {message!r}"


DYNAMIC = re.compile(r"""['"`]((?:[a-z][A-Za-z0-9]*)(?:\.[A-Za-z0-9_]+)*\.)\$\{""")
LITERAL = re.compile(r"""['"`]([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_-]+)+)['"`]""")
# data-i18n-attr="aria-label=table.players;title=table.hint"
ATTRIBUTE = re.compile(r"""data-i18n-attr=["']([^"']+)["']""")


def used_keys() -> tuple[set[str], set[str]]:
    """Keys named literally in the pages, and prefixes of keys built at run time."""
    text = sources()
    literal = set(LITERAL.findall(text))
    for pairs in ATTRIBUTE.findall(text):
        literal.update(pair.split("=", 1)[1].strip() for pair in pairs.split(";") if "=" in pair)
    return literal, set(DYNAMIC.findall(text))


def test_every_key_the_pages_name_exists() -> None:
    literal, _ = used_keys()
    known = {k for messages in EN.values() for k in messages}
    areas = set(EN)
    named = {k for k in literal if k.split(".")[0] in areas}
    assert sorted(named - known) == []


def test_every_key_is_used_by_a_page() -> None:
    literal, prefixes = used_keys()
    unused = sorted(
        k
        for messages in EN.values()
        for k in messages
        if k not in literal and not any(k.startswith(p) for p in prefixes)
    )
    assert unused == []
