"""``python -m geomcheck``: the command line (see :mod:`geomcheck.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":   # importing the package's modules one by one (pkgutil) must not run it
    sys.exit(main())
