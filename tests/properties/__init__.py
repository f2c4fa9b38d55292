"""Property-based tests (hypothesis) of the core, the theory checks and the CLI."""
