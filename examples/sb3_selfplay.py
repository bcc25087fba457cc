"""Any Stable-Baselines3 algorithm learns against a pool of its own past selves on a zerogym game.

make_selfplay_env: the game as a gymnasium env (zerogym.wrappers.SingleAgentEnv) whose opponent is
drawn from the pool every episode; SnapshotCallback adds a frozen copy of the learner every K steps.
Here MaskablePPO with SB3's stock MlpPolicy; PPO, A2C or DQN plug in the same way (they see
illegal moves as losses instead of masking them). `zerogym train pg --algo ppo` does the same with
the AlphaZero nets, logs and checkpoints.
"""

from sb3_contrib import MaskablePPO

from zerogym_agents.pg.opponents import make_selfplay_env
from zerogym_agents.pg.ppo import SnapshotCallback, policy_snapshot
from zerogym_agents.training.pool import OpponentPool

pool = OpponentPool(capacity=10, mode="elo", seed=0)  # Polygames' rule; mode="uniform" is ZetaGo's
env = make_selfplay_env("connect_four", pool, seed=0)  # colours alternate, results update the Elo
model = MaskablePPO("MlpPolicy", env, n_steps=512, seed=0, verbose=0)
pool.add(policy_snapshot(model.policy), name="start")  # the first opponent: the untrained learner
model.learn(20_000, callback=SnapshotCallback(pool, every=2_000))

obs, info = env.reset(seed=1)  # one greedy game against the pool
done = False
while not done:  # masks at prediction too (sb3-contrib#212)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    obs, reward, terminated, truncated, info = env.step(action)
    done = terminated or truncated
print(f"last game vs {info['opponent']}: {reward:+.0f}; learner Elo {pool.learner_elo:.0f}, pool {list(pool.entries)}")
