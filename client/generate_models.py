"""Write ``src/cardroom_client/models.py``: the contract's models, generated from the
server's OpenAPI document (the one ``GET /openapi.json`` serves).

Run from the repository's root, with the server's development install::

    python client/generate_models.py          # rewrite the file
    python client/generate_models.py --check  # exit 1 if the file is not current

The models are generated, never edited by hand; a test checks the file is current.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET = Path(__file__).parent / "src" / "cardroom_client" / "models.py"
HEADER = (
    '"""The contract\'s models, generated from /openapi.json by client/generate_models.py.\n\n'
    'Do not edit: run ``python client/generate_models.py``."""\n\n'
)
OPTIONS = [
    "--input-file-type", "openapi",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.11",
    "--use-annotated",
    "--use-standard-collections",
    "--use-union-operator",
    "--field-constraints",
    "--disable-timestamp",
    "--formatters", "builtin",
    "--use-schema-description",
    "--collapse-root-models",
    "--collapse-constrained-root-models-as-annotated",
    "--enum-field-as-literal", "all",
]  # fmt: skip


def _without_null_defaults(node: object) -> object:
    """The document less its ``"default": null`` members: an absent optional field
    already means null, and the generator would type such a field's root model
    with a ``None`` default its type does not allow."""
    if isinstance(node, dict):
        return {
            k: _without_null_defaults(v)
            for k, v in node.items()
            if not (k == "default" and v is None)
        }
    if isinstance(node, list):
        return [_without_null_defaults(v) for v in node]
    return node


def document() -> object:
    from service.api.openapi import spec

    return _without_null_defaults(spec())


def generate() -> str:
    codegen = Path(sys.executable).parent / "datamodel-codegen"
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "openapi.json", Path(tmp) / "models.py"
        source.write_text(json.dumps(document(), sort_keys=True))
        subprocess.run(
            [str(codegen), "--input", str(source), "--output", str(out), *OPTIONS],
            check=True,
            capture_output=True,
        )
        return HEADER + out.read_text()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the file is current")
    args = parser.parse_args()
    text = generate()
    if args.check:
        current = TARGET.exists() and TARGET.read_text() == text
        print("models.py is current" if current else "models.py is out of date: regenerate it")
        return 0 if current else 1
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
