"""``python -m bench SUITE``: see :mod:`bench.command`."""

import sys

from bench.command import main

sys.exit(main())
