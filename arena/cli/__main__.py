"""`python -m arena.cli`: the `arena` command."""

import sys

from arena.cli.main import main

sys.exit(main())
