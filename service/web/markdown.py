"""The project's Markdown documents as HTML for the pages: the rules of each game
(``/rules/<game>``) and the fairness document on ``/fairness``.

Rendered by markdown-it-py (CommonMark plus tables), never by hand. Raw HTML in
a document is dropped, not passed through (the documents' only HTML is comments
such as ``<!-- vectors:begin -->``); every other text is escaped by the renderer.
Tables are wrapped in a box that scrolls on its own, so a wide table never
widens a phone's page; headings of level 2 and 3 get ids for the contents.
Links go through a function that says where each leads on the site (links
to the repository's other files become plain text).

The documents are found in the package when it was installed from a wheel or
an sdist (``setup.py`` copies ``docs/play``, ``docs/rules`` and
``docs/fairness.md`` into ``service/web/docs``), else in the source tree's
``docs/``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # the parser is loaded with the first page rendered, not with every process
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

PACKAGED_DOCS: Final = Path(__file__).resolve().parent / "docs"
SOURCE_DOCS: Final = Path(__file__).resolve().parents[2] / "docs"


def docs_dir() -> Path:
    """Where the documents are: the installed package's copy, else the source tree's."""
    return PACKAGED_DOCS if PACKAGED_DOCS.is_dir() else SOURCE_DOCS


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    text: str


@dataclass(frozen=True)
class Rendered:
    title: str
    """The text of the document's first level-1 heading ("" without one)."""
    html: str
    headings: tuple[Heading, ...]
    """Level 2 and 3 headings, in order, for a table of contents."""


def _drop(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return ""


def _table_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return '<div class="table-scroll" tabindex="0">' + self.renderToken(tokens, idx, options, env)


def _table_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>"


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.anchors import anchors_plugin

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    md.use(anchors_plugin, min_level=2, max_level=3)
    for rule in ("html_block", "html_inline"):
        md.add_render_rule(rule, _drop)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


Links = Callable[[str], "str | None"]
"""Where a document's link leads on the site: its href there, or None to keep the
link's text only."""


def site_links(href: str) -> str | None:
    """Links that lead somewhere on the web as they are (``https:``, ``/path``,
    ``#heading``); links between the repository's files lead nowhere on the site,
    so they become plain text."""
    if href.startswith(("https://", "http://", "mailto:", "/", "#")):
        return href
    return None


def _relink(tokens: Sequence[Token], links: Links) -> None:
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        kept: list[Token] = []
        dropped: list[bool] = []
        for child in token.children:
            if child.type == "link_open":
                href = links(str(child.attrGet("href") or ""))
                dropped.append(href is None)
                if href is None:
                    continue
                child.attrSet("href", href)
            elif child.type == "link_close" and dropped.pop():
                continue
            kept.append(child)
        token.children = kept


def render(text: str, links: Links = site_links) -> Rendered:
    """``text`` (Markdown) as HTML, with its title and its headings; each link's
    href goes through ``links``."""
    md = _parser()
    env: dict[str, Any] = {}
    tokens = md.parse(text, env)
    _relink(tokens, links)
    title = ""
    headings: list[Heading] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        level = int(token.tag[1:])
        inline = tokens[i + 1].children or []
        content = "".join(c.content for c in inline if c.type in ("text", "code_inline"))
        if level == 1 and not title:
            title = content
        elif level in (2, 3):
            headings.append(Heading(level, str(token.attrs.get("id", "")), content))
    html = md.renderer.render(tokens, md.options, env)
    # a code block that scrolls sideways is reached by keyboard, as a wide table is
    html = html.replace("<pre><code", '<pre tabindex="0"><code')
    return Rendered(title, html, tuple(headings))
