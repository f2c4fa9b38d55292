"""``python -m transformer_theory`` = the ``transformer-theory`` console script."""

import sys

from transformer_theory.cli import main

sys.exit(main())
