"""What every trainer shares: the run loop over a step or time budget (schedule.py), run folders,
the training plot, Ctrl-C handling and the pool of past selves with Elo (pool.py)."""
