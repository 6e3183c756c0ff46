"""``python -m service``: the ``cardroom`` command."""

from service.cli import main

raise SystemExit(main())
