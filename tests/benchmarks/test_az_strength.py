"""benchmarks/az_strength.py: a minutes budget ends training on the clock, --label names the results,
--set reaches the config, --ray the Ray config, and --workers trains with self-play on Ray workers."""

import json
import re

import pytest
import torch

from benchmark_scripts import load_script


def _run(tmp_path, monkeypatch, *extra):
    script = load_script("az_strength")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    script.main(
        [
            "--game",
            "tictactoe",
            "--eval-every",
            "4",
            "--eval-games",
            "2",
            "--final-games",
            "2",
            "--opening-moves",
            "1",
            "--label",
            "t",
            *extra,
        ]
    )
    return (tmp_path / "results" / "az_strength_t.md").read_text()


def test_a_minutes_budget_stops_on_the_clock(tmp_path, monkeypatch):
    text = _run(
        tmp_path,
        monkeypatch,
        "--minutes",
        "0.05",
        "--set",
        "concurrent_games=8",
        "simulations=8",
        "min_buffer=16",
        "batch_size=16",
    )
    seconds = float(re.search(r"(\d+) s of training wall time", text).group(1))
    assert seconds <= 3 + 30  # 3 s of budget: a bound against a run that ignores it, not a speed test
    assert '"concurrent_games": 8' in text and '"simulations": 8' in text
    assert "self-play in the training process" in text
    machine = "CPU cores (the net on a " if torch.cuda.is_available() else "CPU cores (no GPU used)"
    assert machine in text
    assert (tmp_path / "results" / "az_strength_t.png").exists() and (tmp_path / "runs" / "az-strength-t").is_dir()


def test_workers_play_self_play_on_ray(tmp_path, monkeypatch):
    pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    text = _run(
        tmp_path,
        monkeypatch,
        "--workers",
        "1",
        "--steps",
        "4",
        "--ray",
        "samples_per_position=6",
        "--set",
        "concurrent_games=4",
        "simulations=4",
        "min_buffer=16",
        "batch_size=16",
    )
    assert "self-play on 1 Ray worker;" in text
    assert '"samples_per_position": 6.0' in text and '"workers": 1' in text
    positions = int(re.search(r"(\d+) positions", text).group(1))
    assert positions > 0


def test_ray_settings_need_workers(tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit):
        _run(tmp_path, monkeypatch, "--ray", "samples_per_position=6")
    assert "--ray sets the Ray workers' config: give --workers too" in capsys.readouterr().err


def test_final_only_replays_the_final_matches_of_a_saved_agent(tmp_path, monkeypatch):
    text = _run(
        tmp_path,
        monkeypatch,
        "--steps",
        "4",
        "--final-games",
        "4",
        "--set",
        "concurrent_games=8",
        "simulations=8",
        "min_buffer=16",
        "batch_size=16",
    )
    agent = str(tmp_path / "runs" / "az-strength-t" / "agent.pt")
    script = load_script("az_strength")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    script.main(
        ["--game", "tictactoe", "--final-games", "4", "--opening-moves", "1", "--label", "t", "--final-only", agent]
    )
    replayed = (tmp_path / "results" / "az_strength_t_final.md").read_text()
    rows = re.compile(r"^\| (?:minimax|random|greedy) \|.*$", re.M)
    assert rows.findall(replayed) == rows.findall(text) and len(rows.findall(text)) == 3  # same seeds, same games
    assert f"from `{agent}`" in replayed and "'simulations': 64" in replayed


def test_final_only_ships_an_agent_trained_elsewhere_with_the_presets_simulations(tmp_path, monkeypatch):
    from zerogym_agents.agents.saved import load_agent, load_card, read_agent, save_agent
    from zerogym_agents.nets.model import NetConfig, PolicyValueNet, net_from_payload

    net = PolicyValueNet(NetConfig.for_game("tictactoe", blocks=1, channels=8)).eval()
    elsewhere = str(tmp_path / "elsewhere.pt")
    save_agent(elsewhere, net, {"simulations": 8}, {"game": "tictactoe", "kwargs": {}, "training": {"steps": 3}})
    script = load_script("az_strength")
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    monkeypatch.setattr(script, "PRETRAINED_DIR", str(tmp_path / "pretrained"))
    (tmp_path / "pretrained").mkdir()
    argv = ["--game", "tictactoe", "--final-games", "4", "--label", "t", "--final-only", elsewhere]
    script.main([*argv, "--save-pretrained", "mine"])
    shipped = str(tmp_path / "pretrained" / "mine.pt")
    card = load_card(shipped)
    replayed = (tmp_path / "results" / "az_strength_t_final.md").read_text()
    first, second = card["results"]["vs minimax"]["first"], card["results"]["vs minimax"]["second"]
    row = f"| minimax | {first['wins']}-{first['draws']}-{first['losses']} | {second['wins']}-{second['draws']}-"
    assert row in replayed and set(card["results"]) == {"vs minimax", "vs random", "vs greedy"}
    assert card["training"] == {"steps": 3} and "--save-pretrained mine" in card["final_command"]
    agent = load_agent(shipped)
    assert agent.simulations == 64 and "'simulations': 64" in replayed  # the preset's, not the file's 8
    weights = net_from_payload(read_agent(shipped)[1]["net"]).state_dict()
    assert all(torch.equal(weights[k], v) for k, v in net.state_dict().items())


def test_train_only_saves_the_agent_and_plays_no_match(tmp_path, monkeypatch):
    played = []
    script = load_script("az_strength")
    monkeypatch.setattr(script, "play_match", lambda *a, **k: played.append(a))
    monkeypatch.setattr(script, "HERE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    script.main(
        [
            "--game",
            "tictactoe",
            "--steps",
            "4",
            "--eval-every",
            "2",
            "--label",
            "t",
            "--train-only",
            "--set",
            "concurrent_games=8",
            "simulations=8",
            "min_buffer=16",
            "batch_size=16",
        ]
    )
    text = (tmp_path / "results" / "az_strength_t.md").read_text()
    assert played == []
    assert "No matches were played (--train-only)" in text and "| opponent |" not in text
    assert not (tmp_path / "results" / "az_strength_t.png").exists()
    card = json.loads((tmp_path / "runs" / "az-strength-t" / "agent.json").read_text())
    assert card["results"] == {} and card["training"]["steps"] == 4


def test_train_only_and_final_only_exclude_each_other(tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit):
        _run(tmp_path, monkeypatch, "--train-only", "--final-only", "x.pt")
    assert "--final-only and --train-only exclude each other" in capsys.readouterr().err
