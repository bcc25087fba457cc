import torch

from zerogym_agents.alphazero.trainer import AlphaZeroTrainer


def run_and_resume(cfg, tmp_path, cut_at=8):
    """A whole run of `cfg` and the same run cut at step `cut_at` and resumed; asserts they end with
    the same counts and weights and returns the resumed trainer."""
    full = AlphaZeroTrainer(cfg, tmp_path / "a", log_dir=False)
    full.run(progress=False)
    cut = AlphaZeroTrainer(cfg, tmp_path / "b", log_dir=False)
    cut.run(progress=False, stop_at=cut_at)
    resumed = AlphaZeroTrainer(cfg, tmp_path / "b", resume=True, log_dir=False)
    resumed.run(progress=False)
    assert (resumed.games, resumed.positions) == (full.games, full.positions)
    for k, v in full.net.state_dict().items():
        assert torch.equal(v, resumed.net.state_dict()[k]), k
    return resumed
