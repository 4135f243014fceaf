"""One module per command: each parses its arguments and calls the core."""
