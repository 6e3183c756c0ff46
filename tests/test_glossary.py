"""The glossaries (docs/glossary/<lang>.json): the game terms as each language's players say
them, and the catalogs and translated rules pages that use them.

- every language names every term the English glossary lists;
- each catalog message and each rules page that says a term says it with the glossary's word
  (its stem: the part before ``|``, where inflection begins);
- no translated catalog or rules page keeps an English game term, nor an English gloss in
  brackets ("тройка (troy)"), unless the glossary lists the English word as the one its
  players use, with the reason.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary"
I18N = ROOT / "service" / "web" / "static" / "i18n"
DOCS = ROOT / "docs"
LANGUAGES = ("en", "ru", "hu", "bg", "sq", "ne")
TRANSLATED = LANGUAGES[1:]
GAMES = ("hazari", "azi", "murlan")
LETTER = r"[^\W\d_]"


@cache
def glossary(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GLOSSARY / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@cache
def catalog(lang: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted((I18N / lang).glob("*.json")):
        out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


def stem(term: str) -> str:
    return term.split("|")[0].lower()


def prose(text: str) -> str:
    """A Markdown text without its code (fenced blocks and `spans`), which is not words."""
    text = re.sub(r"^(```|~~~).*?^\1", " ", text, flags=re.M | re.S)
    text = re.sub(r"^(    |\t).*$", " ", text, flags=re.M)
    return re.sub(r"`[^`\n]*`", " ", text)


def rules_pages(lang: str, game: str) -> dict[str, str]:
    """The translated rules of ``game``: for players and the engine's reference."""
    out = {}
    for kind in ("play", "rules"):
        path = DOCS / kind / lang / f"{game}.md"
        if path.is_file():
            out[f"{kind}/{lang}/{game}.md"] = prose(path.read_text(encoding="utf-8"))
    return out


def whole(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!{LETTER}){re.escape(word)}(?!{LETTER})", re.I)


@cache
def english_vocabulary() -> frozenset[str]:
    """The words of the English pages: the English catalogs and rules."""
    text = " ".join(catalog("en").values())
    for kind in ("play", "rules"):
        for game in GAMES:
            text += " " + prose((DOCS / kind / f"{game}.md").read_text(encoding="utf-8"))
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", re.sub(r"\{[^{}]*\}", " ", text))}
    return frozenset(words)


def allowed_english(lang: str) -> set[str]:
    return {w.lower() for w in glossary(lang)["english"]}


def test_the_english_glossary_says_where_each_term_is_used() -> None:
    uses = glossary("en")["uses"]
    assert set(uses) == set(glossary("en")["terms"])
    messages = catalog("en")
    for concept, where in uses.items():
        assert where["catalog"], concept
        for key in where["catalog"]:
            assert key in messages, (concept, key)
        assert set(where["rules"]) <= set(GAMES), concept


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_term_is_named_and_every_kept_english_word_has_its_reason(lang: str) -> None:
    doc = glossary(lang)
    assert doc["language"] == lang and doc["notes"].strip()
    assert set(doc["terms"]) == set(glossary("en")["terms"]), lang
    for word, reason in doc["english"].items():
        assert len(reason.split()) >= 5, f"{lang}: {word!r} kept in English without a reason"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalogs_use_the_glossary_terms(lang: str) -> None:
    terms, messages = glossary(lang)["terms"], catalog(lang)
    wrong = []
    for concept, where in glossary("en")["uses"].items():
        for key in where["catalog"]:
            if stem(terms[concept]) not in messages[key].lower():
                wrong.append(f"{key}: {messages[key]!r} does not say {terms[concept]!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_rules_pages_use_the_glossary_terms(lang: str) -> None:
    terms = glossary(lang)["terms"]
    wrong = []
    for concept, where in glossary("en")["uses"].items():
        for game in where["rules"]:
            for name, text in rules_pages(lang, game).items():
                if stem(terms[concept]) not in text.lower():
                    wrong.append(f"{name} does not say {terms[concept]!r} ({concept})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_game_term_is_left(lang: str) -> None:
    """The English word of a term appears in neither the catalogs nor the rules pages of a
    language whose glossary says its players use another word."""
    own, allowed = glossary(lang)["terms"], allowed_english(lang)
    texts = {f"catalog {k}": m for k, m in catalog(lang).items()}
    for game in GAMES:
        texts.update(rules_pages(lang, game))
    found = []
    for concept, english in glossary("en")["terms"].items():
        word = stem(english)
        if word in allowed or stem(own[concept]) == word:
            continue
        pattern = whole(word)
        for name, text in texts.items():
            hit = pattern.search(re.sub(r"\{[^{}]*\}", " ", text))
            if hit:
                found.append(f"{name}: {text[max(0, hit.start() - 30) : hit.end() + 30]!r}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_gloss_in_brackets(lang: str) -> None:
    """No "(color run)" after a translated term: a bracket of English words is a gloss."""
    vocabulary, allowed = english_vocabulary(), allowed_english(lang)
    texts = {f"catalog {k}": m for k, m in catalog(lang).items()}
    for game in GAMES:
        texts.update(rules_pages(lang, game))
    found = []
    for name, text in texts.items():
        # a bracket after a space or at a line's start: "a(z)" is Hungarian grammar, not a gloss
        for match in re.finditer(r"(?:^|(?<=[\s|*]))\(([A-Za-z][A-Za-z\s\-]*)\)", text, re.M):
            inside = match.group(1).strip()
            words = [w for w in re.split(r"[\s-]+", inside) if w.lower() not in allowed]
            if inside.lower() in allowed or all(w.isupper() for w in words):
                continue  # a word players use, or an abbreviation (JSON, API)
            if any(len(w) > 2 for w in words) and all(w.lower() in vocabulary for w in words):
                found.append(f"{name}: {text[max(0, match.start() - 30) : match.end()]!r}")
    assert not found, "\n".join(found)


def test_the_glosses_test_finds_a_gloss() -> None:
    """The detector is not blind: the sentence the Russian rules had is caught."""
    vocabulary = english_vocabulary()
    assert {"color", "run", "pair", "short", "buy", "in"} <= vocabulary
    sample = "| стрит-флеш (color run) | три подряд |"
    inside = re.findall(r"\(([A-Za-z][A-Za-z \-]*)\)", sample)
    assert inside == ["color run"] and all(w in vocabulary for w in inside[0].split())
