"""``python -m service``: the ``cardroom`` command."""

from service.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
