"""Configuration: every CARDROOM_* variable is documented, and a bad one is named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.config import ConfigError, Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
CARDROOM = str(Path(sys.executable).with_name("cardroom"))


def test_every_setting_is_in_the_operations_table() -> None:
    doc = (ROOT / "docs" / "operations.md").read_text()
    for name in Settings.model_fields:
        assert f"`CARDROOM_{name.upper()}`" in doc, f"CARDROOM_{name.upper()} is not documented"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CARDROOM_PORT", "eighty"),
        ("CARDROOM_PORT", "70000"),
        ("CARDROOM_BOT_DELAY_S", "-1"),
        ("CARDROOM_LOG_LEVEL", "LOUD"),
        ("CARDROOM_JOB_RETRY_BACKOFF_S", "soon"),
    ],
)
def test_a_bad_value_is_named(variable: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert variable in str(info.value)


def test_the_command_stops_with_the_variable_named() -> None:
    env = {**os.environ, "CARDROOM_PORT": "eighty"}
    run = subprocess.run([CARDROOM, "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "CARDROOM_PORT" in run.stderr and "Traceback" not in run.stderr
