"""``python -m schemacore``: the same command line as the ``schemacore`` script."""

from __future__ import annotations

import sys

from schemacore.cli import main

if __name__ == "__main__":
    sys.exit(main())
