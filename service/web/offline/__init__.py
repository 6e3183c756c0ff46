"""The offline verifier: one self-contained HTML file, served at ``/verifier``
and kept as ``docs/verifier.html``.

:func:`build` puts into ``verifier.html`` (this package) the page's style
sheet, the bundled IntlMessageFormat, the catalogs of the ``common`` and
``verifier`` areas in every language, the in-browser verifier
(``static/js/verifier.js``), its view (``verifier-view.js``) and the page's
own script (``page.js``). The page's Content-Security-Policy (in a ``<meta>``,
so that it holds for a saved file too) allows those two inline blocks by
their SHA-256 and nothing else: no request of any kind.

``python -m service.web.offline [PATH]`` writes the page (default
``docs/verifier.html``); a test checks that the file is what :func:`build`
makes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent
STATIC: Final = HERE.parent / "static"
LANGUAGES: Final = ("en", "ru", "hu", "bg", "sq", "ne")
AREAS: Final = ("common", "verifier")
MODULES: Final = ("js/verifier.js", "js/verifier-view.js")
EXPORT: Final = re.compile(r"^export (?=(?:async )?function|const|class|let)", re.M)
VENDOR_EXPORT: Final = re.compile(r"export\{(\w+) as IntlMessageFormat\};\s*$")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def csp(script: str, style: str) -> str:
    """No request of any kind; only the page's own inline script and style sheet."""
    return "; ".join(
        (
            "default-src 'none'",
            f"script-src {_digest(script)}",
            f"style-src {_digest(style)}",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )


def catalogs() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        merged: dict[str, str] = {}
        for area in AREAS:
            merged.update(json.loads((STATIC / "i18n" / lang / f"{area}.json").read_text("utf-8")))
        out[lang] = merged
    return out


def script() -> str:
    vendor = (STATIC / "vendor" / "intl-messageformat.js").read_text("utf-8")
    match = VENDOR_EXPORT.search(vendor)
    if match is None:
        raise RuntimeError("the bundled intl-messageformat no longer ends with its export")
    vendor = vendor[: match.start()] + f"return {match.group(1)};"
    data = json.dumps(catalogs(), ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    parts = [
        f"const IntlMessageFormat = (() => {{\n{vendor}\n}})();",
        f"const CATALOGS = {data};",
        *(EXPORT.sub("", (STATIC / name).read_text("utf-8")) for name in MODULES),
        (HERE / "page.js").read_text("utf-8"),
    ]
    return "\n" + "\n".join(parts)


@cache
def _parts() -> tuple[str, str]:
    return script(), (STATIC / "style.css").read_text("utf-8")


def page_csp() -> str:
    """The page's policy (its ``<meta>``; the server sends it as a header too)."""
    return csp(*_parts())


@cache
def build() -> str:
    """The whole page."""
    code, style = _parts()
    page = (HERE / "verifier.html").read_text("utf-8")
    return (
        page.replace("{{csp}}", page_csp()).replace("{{style}}", style).replace("{{script}}", code)
    )


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else Path("docs") / "verifier.html"
    target.write_text(build(), encoding="utf-8")
    print(f"wrote {target}")
    return 0
