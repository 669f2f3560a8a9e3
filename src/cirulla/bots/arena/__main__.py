"""`python -m cirulla.bots.arena A B ...`: the subcommand without the rest of the CLI."""

import sys

from .cli import main

sys.exit(main())
