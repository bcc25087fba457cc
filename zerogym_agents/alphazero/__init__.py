"""AlphaZero: self-play with batched PUCT search, replay buffer, training, tournament pool."""
