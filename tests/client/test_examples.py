"""The three example bots play whole matches against the house bots (bots at
delay 0), with no move refused and no fallback, and their replays verify."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest
from cardroom_client import Client

from service.devstack import Serve

from .conftest import EXAMPLES, GAMES, read_state, run_kit

pytestmark = pytest.mark.xdist_group("client-server")


def code_lines(path: Path) -> int:
    """Lines of code: not blank, not only a comment, not part of a docstring."""
    source = path.read_text()
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.ENDMARKER):  # fmt: skip
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines - docstrings)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_example_finishes_a_match_and_its_replay_verifies(
    game: str, server: Serve, tmp_path: Path
) -> None:
    state = tmp_path / "state.json"
    summary = run_kit(server.url, f"{game}_bot.py", state, "--game", game, *GAMES[game])
    assert summary.startswith("cardroom-bot: 1 of 1 games ended"), summary
    assert "(0 first-legal fallbacks)" in summary, summary
    (table,) = read_state(state)["tables"]
    with Client(server.url) as client:
        view = client.view(table["game_id"])
        assert view.status == "ended"
        verification = client.verify(table["game_id"])
        assert verification.verified, verification
        assert verification.params["moves"] > 0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_examples_are_at_most_25_lines_of_code(game: str) -> None:
    assert 5 < code_lines(EXAMPLES / f"{game}_bot.py") <= 25
