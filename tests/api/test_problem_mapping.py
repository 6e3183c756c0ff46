"""The one table from error type to problem (``service.api.errors.PROBLEMS``).

Every error class of ``service/``, ``workers/`` and ``schemas/`` (read from
the source, so a new one cannot be missed) either has its own problem or is
listed below as internal, with the reason it may end as the logged 500. An
error takes the problem of its nearest mapped base.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
from flask import Flask

from service.api.apierror import ApiLayerError
from service.api.errors import PROBLEMS, handle, render_for
from service.engines.base import RuleError
from service.engines.cards import CardError
from service.engines.errors import EngineError
from service.engines.table import TableError
from service.errors import IdempotencyKeyInUse, IdempotencyKeyReused, ServiceError
from service.store.errors import GameNotFound, StoreError

ROOT = Path(__file__).resolve().parents[2]
LAYER_ROOTS: tuple[type[Exception], ...] = (EngineError, StoreError, ServiceError, ApiLayerError)

INTERNAL: dict[str, str] = {
    # the roots: a new error under one needs a problem of its own
    "service.engines.errors.EngineError": "a root; only its subclasses are raised",
    "service.store.errors.StoreError": "a root; only its subclasses are raised",
    "service.errors.ServiceError": "a root; only its subclasses are raised",
    "service.api.apierror.ApiLayerError": "a root; only its subclasses are raised",
    # reach a request only through a bug or an operator's problem: the logged 500
    "service.engines.azi.settle.SettlementError": "a pot the engine itself built wrong: a bug",
    "service.engines.shuffle.VerificationError": "raised by offline verification, not a request",
    "service.errors.MissingSecret": "a game whose server seed is gone: an operator's problem",
    "service.store.errors.GameExists": "raised by the command line's import only",
    "service.fairness.inputs._Refused": "raised and caught by cardroom fairness's input check",
    "service.store.errors.CorruptExport": "raised by the command line's import only",
    "service.store.seeds.SeedKeyError": "the operator's seed keys do not open a seed",
    "schemas.codec.EventDecodeError": "a stored event that does not decode: corrupt data",
    # the command line and the process wiring, never under a request
    "service.aofcheck.AofAclHazard": "a start-up check of Redis's configuration",
    "service.config.ConfigError": "bad settings at start-up",
    "service.localredis.DataDirError": "the embedded Redis's data directory, at start-up",
    "service.replay.ReplayFormatError": "the command line's replay files",
    "service.replay._Mismatch": "caught inside the audit, which reports it",
    "service.retention.ArchiveMismatch": "caught inside the retention pass",
    "service.store.tails.TailLost": "caught by the stream hub's reader thread, whose streams end",
    "service.fairness.expectations.UnknownContext": "a deal context the engines never note: a bug",
}


def project_errors() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of ``service``, ``workers`` or
    ``schemas``, by its dotted name."""
    found: dict[str, type[BaseException]] = {}
    for top in ("service", "workers", "schemas"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join(parts)
            module = importlib.import_module(name)
            for value in vars(module).values():
                if (
                    inspect.isclass(value)
                    and issubclass(value, BaseException)
                    and value.__module__ == name
                ):
                    found[f"{name}.{value.__qualname__}"] = value
    return found


def test_the_source_is_read() -> None:
    names = set(project_errors())
    assert {
        "service.engines.base.RuleError",
        "service.store.errors.BadCursor",
        "service.errors.RateLimited",
        "service.api.streamcaps.TooManyStreams",
        "schemas.moves.BodyError",
    } <= names


def test_every_error_of_the_project_has_a_problem_or_is_internal() -> None:
    unmapped = sorted(
        name
        for name, kind in project_errors().items()
        if render_for(kind) is None and name not in INTERNAL
    )
    assert unmapped == [], (
        f"errors without a problem (map them or list them as internal): {unmapped}"
    )


def test_every_error_under_a_layer_root_is_mapped_unless_internal() -> None:
    for name, kind in project_errors().items():
        if issubclass(kind, LAYER_ROOTS) and name not in INTERNAL:
            assert render_for(kind) is not None, name


def test_the_internal_list_is_current() -> None:
    errors = project_errors()
    for name in INTERNAL:
        assert name in errors, f"{name} is listed as internal but no longer exists"
        assert render_for(errors[name]) is None, f"{name} is listed as internal but mapped"


def test_the_errors_are_under_their_layer_roots() -> None:
    errors = project_errors()
    for name, kind in errors.items():
        for prefix, root in (
            ("service.engines.", EngineError),
            ("service.store.", StoreError),
            ("service.errors.", ServiceError),
        ):
            if name.startswith(prefix):
                assert issubclass(kind, root), f"{name} is not a {root.__name__}"
    assert issubclass(errors["service.api.errors.ApiError"], ApiLayerError)
    assert issubclass(errors["service.api.streamcaps.TooManyStreams"], ApiLayerError)


def test_the_moved_errors_keep_their_standard_bases() -> None:
    errors = project_errors()
    for name, base in (
        ("service.errors.MissingSecret", RuntimeError),
        ("service.errors.IdempotencyKeyReused", ValueError),
        ("service.errors.IdempotencyKeyInUse", RuntimeError),
        ("service.errors.BadClientSecret", ValueError),
        ("service.store.errors.BadCursor", ValueError),
        ("service.store.seeds.SeedKeyError", ValueError),
    ):
        assert issubclass(errors[name], base), name
    for name, kind in errors.items():
        if issubclass(kind, EngineError):
            assert issubclass(kind, ValueError), name


def test_the_old_import_paths_still_work() -> None:
    from service import budgets, errors, games, idempotency
    from service.store import errors as store_errors
    from service.store import index

    assert games.Unauthenticated is errors.Unauthenticated
    assert games.Forbidden is errors.Forbidden
    assert games.MissingSecret is errors.MissingSecret
    assert idempotency.IdempotencyKeyReused is errors.IdempotencyKeyReused
    assert idempotency.IdempotencyKeyInUse is errors.IdempotencyKeyInUse
    assert idempotency.BadClientSecret is errors.BadClientSecret
    assert budgets.RateLimited is errors.RateLimited
    assert index.BadCursor is store_errors.BadCursor


def test_an_error_takes_its_own_entry_over_its_bases() -> None:
    assert render_for(TableError) is PROBLEMS[TableError]
    assert PROBLEMS[TableError] is not PROBLEMS[RuleError]


def test_a_subclass_takes_its_nearest_mapped_base() -> None:
    class Deeper(IdempotencyKeyReused):
        pass

    class Both(CardError, RuleError):
        pass

    class BothTheOtherWay(RuleError, CardError):
        pass

    class Deepest(Deeper):
        pass

    assert render_for(Deeper) is PROBLEMS[IdempotencyKeyReused]
    assert render_for(Deepest) is PROBLEMS[IdempotencyKeyReused]
    assert render_for(Both) is PROBLEMS[CardError]
    assert render_for(BothTheOtherWay) is PROBLEMS[RuleError]
    assert render_for(ServiceError) is None
    assert render_for(KeyError) is None


def test_a_subclass_is_written_as_its_base(app: Flask) -> None:
    class Later(IdempotencyKeyInUse):
        pass

    with app.test_request_context():
        mine, base = handle(Later(3)), handle(IdempotencyKeyInUse(3))
    assert (mine.status_code, mine.headers["Retry-After"]) == (409, "3")
    assert mine.get_json() == base.get_json()
    assert mine.get_json()["type"].endswith("/idempotency-key-in-use")


@pytest.mark.parametrize("kind", [ServiceError, EngineError, StoreError])
def test_a_bare_root_is_the_logged_500(app: Flask, kind: type[Exception]) -> None:
    with app.test_request_context():
        response = handle(kind("boom"))
    assert response.status_code == 500
    assert response.get_json()["type"].endswith("/internal")
    assert "boom" not in response.get_data(as_text=True)


def test_a_game_not_found_of_a_live_store_is_a_404(app: Flask) -> None:
    with app.test_request_context():
        response = handle(GameNotFound("nope"))
    assert response.status_code == 404
    assert response.get_json()["detail"] == "no game 'nope'"
