"""The `zerogym` command: main.py parses and dispatches, one module per sub-command beside it."""
