"""``python -m transformer_theory`` = the ``transformer-theory`` console script."""

import sys

from transformer_theory.cli import main

if __name__ == "__main__":  # importing the module (the docs' autosummary does) runs nothing
    sys.exit(main())
