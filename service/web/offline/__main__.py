"""``python -m service.web.offline [PATH]``: write the offline verifier page."""

import sys

from . import main

sys.exit(main(sys.argv[1:]))
