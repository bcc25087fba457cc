"""The README's code examples run."""
import numpy as np


def test_aec_loop_example():
    from zerogym import go_v0
    env = go_v0.env(board_size=5, komi=7.5, render_mode="ansi")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    assert "score" in info and "A B C D E" in env.render()


def test_maskable_ppo_example():
    from sb3_contrib import MaskablePPO
    from zerogym import connect_four_v0
    from zerogym.wrappers import SingleAgentEnv

    opponent = lambda env: int(env.np_random.choice(env.state.legal_actions()))  # noqa: E731
    gym_env = SingleAgentEnv(connect_four_v0.env(), opponent, learner="alternate")
    model = MaskablePPO("MlpPolicy", gym_env, seed=0, n_steps=64, batch_size=32)
    model.learn(128)
    obs, _ = gym_env.reset(seed=1)
    for _ in range(10):
        action, _ = model.predict(obs, action_masks=gym_env.action_masks())
        assert gym_env.action_masks()[action]
        obs, r, term, trunc, _ = gym_env.step(action)
        if term or trunc:
            break


def test_the_landing_example_runs_as_written(capsys):
    """The first Python block of the README (a shipped AlphaZero agent against UCT(1000)), verbatim."""
    import pathlib
    import re
    text = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert "load_agent(\"pretrained:connect_four\")" in block and len(block.strip().splitlines()) <= 12
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "game over" in out and re.search(r"^(AlphaZero wins|UCT\(1000\) wins|draw)$", out, re.M)
