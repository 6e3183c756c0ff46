"""Loading the author's bot: a Python file that defines ``choose(view)``."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import cast

from .runner import Choose


def load_choose(path: Path) -> Choose:
    spec = importlib.util.spec_from_file_location(f"cardroom_bot_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    choose = getattr(module, "choose", None)
    if not callable(choose):
        raise SystemExit(f"{path} defines no choose(view) function")
    return cast(Choose, choose)
