"""An example researcher's package: its ledger rows are in :mod:`my_paper.claims`."""
