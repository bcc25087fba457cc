"""Compiled tree search: batched PUCT (AlphaZero) and UCT with random rollouts."""
