"""``python -m service.web.offline [PATH]``: write the offline verifier page."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
