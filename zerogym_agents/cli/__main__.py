"""`python -m zerogym_agents.cli`: the `zerogym` command."""

from zerogym_agents.cli.main import main

if __name__ == "__main__":
    main()
