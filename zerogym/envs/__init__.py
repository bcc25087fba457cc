"""PettingZoo AEC environments, one module per game over the shared base in base.py."""
