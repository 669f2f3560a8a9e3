"""`python -m cirulla` is the `cirulla` command."""

import sys

from .cli import main

sys.exit(main())
