"""``python -m frontier_cli``: the ``frontier`` command, behind the Ctrl-C guard
(:mod:`frontier_cli.guard`), as the installed script runs it."""

import sys

from frontier_cli.guard import main

sys.exit(main())
