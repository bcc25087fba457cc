"""Scale-out of training over Ray (`zerogym train alphazero|pg --backend ray`); see docs/scale.md.

- runtime.py: Ray imported on demand (a clear error when it is missing), started or joined, and the
  resources each worker declares;
- config.py: RayConfig, the backend's settings (workers, mode, task size, in-flight cap, train ratio);
- selfplay_worker.py: an AlphaZero self-play task (steps of the batched search over G games) and the
  actor that runs it, fetching weights only when their version changed;
- alphazero.py: RayAlphaZeroTrainer, whose driver owns the learner and the replay buffer;
- pg.py: RayReinforceTrainer, REINFORCE rollouts split over rollout actors.

Nothing here imports Ray at module level: `import zerogym_agents.scale` works without it.
"""
