"""cardroom-client installs into a fresh virtualenv with its own two
dependencies only: no redis, rq or flask; its models are generated from the
server's OpenAPI document and the file is current."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

UV = shutil.which("uv") or str(Path(sys.executable).parent / "uv")


@pytest.mark.slow
def test_the_client_installs_without_the_servers_dependencies(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # uv keeps its downloads in its cache, shared by every run: a repeat takes seconds
    subprocess.run([UV, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [UV, "pip", "install", "-q", "--python", str(python), str(ROOT / "client")],
        check=True, timeout=300,
    )  # fmt: skip
    listed = subprocess.run(
        [UV, "pip", "list", "--python", str(python), "--format", "freeze"],
        check=True, capture_output=True, text=True,
    ).stdout.lower()  # fmt: skip
    names = {line.split("==")[0] for line in listed.splitlines()}
    assert "cardroom-client" in names
    assert not names & {"redis", "rq", "flask", "cardroom"}, names
    probe = "import cardroom_client, cardroom_client.bot.cli; print(cardroom_client.Client)"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    helped = subprocess.run([str(venv / "bin" / "cardroom-bot"), "run", "--help"],
                            capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert helped.returncode == 0 and "--fill-bots" in helped.stdout
    assert any(venv.glob("lib/python*/site-packages/cardroom_client/py.typed"))


def test_the_generated_models_are_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "client" / "generate_models.py"), "--check"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
