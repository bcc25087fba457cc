"""Saved agents: round trip, the shipped pretrained agents, refusals."""

import numpy as np
import pytest

import zerogym
from zerogym_agents.agents.specs import agent_from_spec, saved_options_line
from zerogym_agents.core.checkpoint import CheckpointError, save_checkpoint
from zerogym_agents.nets import PolicyValueNet, for_game
from zerogym_agents.agents.saved import load_agent, load_card, pretrained_names, save_agent


def test_round_trip_keeps_the_net_and_options(tmp_path):
    net = PolicyValueNet(for_game("connect_four", trunk="resnet", blocks=1, channels=8))
    save_agent(tmp_path / "a.pt", net, {"simulations": 7}, {"game": "connect_four"})
    agent = load_agent(str(tmp_path / "a.pt"), seed=0)
    assert agent.simulations == 7
    assert load_card(str(tmp_path / "a.pt"))["game"] == "connect_four"
    assert (tmp_path / "a.json").exists()
    planes = np.random.default_rng(0).integers(0, 2, (3, 3, 6, 7)).astype(np.float32)
    masks = np.ones((3, 7), np.int8)
    p1, v1 = agent.evaluator(planes, masks)
    from zerogym_agents.nets import make_evaluator

    p0, v0 = make_evaluator(net)(planes, masks)
    assert np.allclose(p0, p1) and np.allclose(v0, v1)
    assert load_agent(str(tmp_path / "a.pt"), simulations=3).simulations == 3


def test_pretrained_tictactoe_plays_and_never_loses_to_random():
    assert "tictactoe" in pretrained_names()
    card = load_card("pretrained:tictactoe")
    assert card["game"] == "tictactoe" and "command" in card
    from zerogym_agents.arena.match import play_match
    from zerogym_agents import RandomAgent

    result = play_match(load_agent("pretrained:tictactoe", seed=0), RandomAgent(1), "tictactoe", {}, games=10, seed=4)
    assert result.total.losses == 0


def test_pretrained_go_9x9_grew_from_the_transfer_experiments_best_and_beats_random():
    card = load_card("pretrained:go_9x9")
    assert card["game"] == "go" and card["kwargs"]["board_size"] == 9
    before = card["started_from"]  # the agent it was trained on from, on CPU machines
    start = before["started_from"]
    final = start["selection"]["final_elo"]
    assert start["selection"]["method"] == max(final, key=final.get) == start["training"]["method"]
    spent = card["training_time"]
    assert spent["cpu_seconds"] == pytest.approx(
        start["pretrained:go_5x5"]["seconds"] + start["training"]["seconds"] + before["training"]["seconds"]
    )
    assert spent["cpu_seconds"] <= 4 * 3600
    assert spent["gpu_seconds"] == card["training"]["seconds"] and card["training"]["config"]["device"] == "cuda"
    assert card["training"]["config"]["init_from"] == "pretrained:go_9x9"
    from zerogym_agents.arena.match import play_match
    from zerogym_agents import RandomAgent

    agent = load_agent("pretrained:go_9x9", simulations=32, seed=0)
    result = play_match(agent, RandomAgent(1), "go", {"board_size": 9}, games=4, seed=0)
    assert result.total.wins == 4


def test_pretrained_go_13x13_is_go_9x9_trained_on_13x13_and_beats_random():
    card = load_card("pretrained:go_13x13")
    assert card["game"] == "go" and card["kwargs"] == {"board_size": 13}
    first = card["started_from"]  # the agent first shipped: pretrained:go_9x9 fine-tuned on 13x13
    assert card["training"]["config"]["init_from"] == "pretrained:go_13x13"
    assert first["training"]["config"]["init_from"] == first["started_from"]["agent"] == "pretrained:go_9x9"
    assert first["training"]["method"] == "finetune"
    for run in (first, card):
        assert run["training"]["config"]["game_kwargs"] == {"board_size": 13}
    assert card["net"] == load_card("pretrained:go_9x9")["net"]  # the same net, every weight trained further
    spent = load_card("pretrained:go_9x9")["training_time"]["cpu_seconds"]
    spent += first["training"]["seconds"] + card["training"]["seconds"]
    assert card["training_time"]["cpu_seconds"] == pytest.approx(spent, abs=0.1)
    wins, draws, losses = map(int, card["gnugo_level_10"]["wins-draws-losses"].split("-"))
    split = card["results"]["vs gnugo:10"]
    assert wins + draws + losses == sum(sum(side.values()) for side in split.values()) == 100
    assert wins == split["first"]["wins"] + split["second"]["wins"]
    from zerogym_agents.arena.match import play_match
    from zerogym_agents import RandomAgent

    agent = load_agent("pretrained:go_13x13", simulations=100, seed=0)  # at 32 the first one lost a game to Random
    result = play_match(agent, RandomAgent(1), "go", {"board_size": 13}, games=2, seed=0)
    assert result.total.wins == 2


def test_reports_name_the_options_saved_agents_play_with(tmp_path):
    net = PolicyValueNet(for_game("connect_four", trunk="resnet", blocks=1, channels=8))
    save_agent(tmp_path / "a.pt", net, {"simulations": 7, "solver": True}, {"game": "connect_four"})
    line = saved_options_line(["random", str(tmp_path / "a.pt"), "uct:10"])
    assert f"`{tmp_path / 'a.pt'}`: simulations=7, solver=True" in line
    assert "random" not in line and "uct" not in line
    assert saved_options_line(["random", "uct:10"]) == ""


def test_pretrained_connect_four_card_keeps_its_budget_and_what_it_replaced_and_the_agent_wins_won_positions():
    card = load_card("pretrained:connect_four")
    assert card["game"] == "connect_four" and card["kwargs"] == {}
    assert card["training"]["seconds"] <= 4 * 3600 and "--minutes 90 --workers 2" in card["command"]
    assert card["net"]["blocks"] * card["net"]["channels"] > 4 * 32  # larger than the net it replaced
    split = card["results"]["vs uct:1000"]
    assert sum(sum(side.values()) for side in split.values()) == 200
    old = card["replaced"]
    assert old["its training"]["seconds"] < card["training"]["seconds"]
    (head_to_head,) = (v for k, v in old.items() if k.startswith("head to head"))
    wins, draws, losses = map(int, next(iter(head_to_head.values())).split("-"))
    assert wins + draws + losses == 200 and wins > losses
    from zerogym_agents.solvers.connect_four import ConnectFourSolver, state_from_moves

    # a won position of the end-easy group, 3 moves from the end, whose winning columns the net gives
    # almost no prior: 400 simulations without the solver settle for a draw
    state = state_from_moves("3217541231755447632314774646372")
    winning = ConnectFourSolver().best_moves(state, weak=True)
    assert ConnectFourSolver().value(state) == 1 and 0 < len(winning) < 5
    agent = load_agent("pretrained:connect_four", seed=0)
    assert agent.settings.solver and agent.settings.decisive_moves and agent.simulations == 600
    action, _, value = agent.search(state)
    assert action in winning and value == 1.0  # proven: the root value is exact


@pytest.mark.parametrize(
    "name,game,kwargs",
    [
        ("breakthrough_6x6", "breakthrough", {"rows": 6, "cols": 6}),
        ("havannah_4", "havannah", {"board_size": 4}),
        ("havannah_8", "havannah", {"board_size": 8}),
        ("hex_7x7", "hex", {"board_size": 7, "swap": True}),
        ("hex_11x11", "hex", {"board_size": 11, "swap": True}),
    ],
)
def test_pretrained_agents_of_the_newer_games_beat_random(name, game, kwargs):
    card = load_card(f"pretrained:{name}")
    assert card["game"] == game and card["kwargs"] == kwargs and "command" in card
    from zerogym_agents.arena.match import play_match
    from zerogym_agents import RandomAgent

    result = play_match(
        load_agent(f"pretrained:{name}", simulations=32, seed=0), RandomAgent(1), game, kwargs, games=4, seed=0
    )
    assert result.total.wins == 4


def test_arena_specs_reach_saved_agents():
    agent = agent_from_spec("pretrained:tictactoe", "tictactoe", {}, seed=0)
    env = zerogym.make("tictactoe")
    env.reset()
    assert env.unwrapped.state.is_legal(agent.act(env))


def test_arena_specs_take_any_saved_file_and_refuse_an_agent_of_another_game(tmp_path):
    import shutil
    from zerogym_agents.agents.saved import resolve

    shutil.copy(resolve("pretrained:tictactoe"), tmp_path / "ttt.agent")  # not named *.pt
    env = zerogym.make("tictactoe")
    env.reset()
    assert env.unwrapped.state.is_legal(agent_from_spec(str(tmp_path / "ttt.agent"), "tictactoe", {}, seed=0).act(env))
    with pytest.raises(ValueError, match=r"connect_four\.pt: .*does not fit game 'tictactoe'"):
        agent_from_spec("pretrained:connect_four", "tictactoe", {}, seed=0)
    with pytest.raises(ValueError, match="does not fit game 'othello'"):
        load_agent("pretrained:go_5x5", game="othello", game_kwargs={"board_size": 6})
    agent_from_spec("pretrained:go_5x5", "go", {"board_size": 9}, seed=0)  # any board size of its game
    with pytest.raises(ValueError, match="unknown agent spec 'nothing-here'"):
        agent_from_spec("nothing-here", "tictactoe", {}, seed=0)


def test_refusals(tmp_path):
    with pytest.raises(ValueError, match="no pretrained agent 'chess'.*tictactoe"):
        load_agent("pretrained:chess")
    save_checkpoint(tmp_path / "x.pt", "alphazero", {})
    with pytest.raises(CheckpointError, match="a training checkpoint .alphazero., not an agent"):
        load_agent(str(tmp_path / "x.pt"))
    (tmp_path / "junk.pt").write_bytes(b"junk")
    with pytest.raises(CheckpointError, match="not a readable"):
        load_agent(str(tmp_path / "junk.pt"))


def test_policy_kind_loads_as_a_policy_agent(tmp_path):
    from zerogym_agents.agents.policy import PolicyAgent

    net = PolicyValueNet(for_game("tictactoe", trunk="resnet", blocks=1, channels=8))
    save_agent(tmp_path / "p.pt", net, {"greedy": False}, {"game": "tictactoe"}, kind="policy")
    agent = agent_from_spec(str(tmp_path / "p.pt"), "tictactoe", {}, seed=0)
    assert isinstance(agent, PolicyAgent) and not agent.greedy
    env = zerogym.make("tictactoe")
    env.reset()
    assert env.unwrapped.state.is_legal(agent.act(env))
    from zerogym_agents.nets import net_payload

    save_checkpoint(
        tmp_path / "odd.pt", "agent", {"agent": "oracle", "net": net_payload(net), "options": "{}", "card": "{}"}
    )
    with pytest.raises(CheckpointError, match="unknown agent kind 'oracle'; known: alphazero, policy"):
        load_agent(str(tmp_path / "odd.pt"))


# ---- malformed agent files: every loader says which file and what is wrong -----------------------------

import json  # noqa: E402

import torch  # noqa: E402

from zerogym_agents.agents.saved import copy_agent, resolve  # noqa: E402

WRONG = {"None": None, "int": 7, "str": "x", "list": [1], "dict": {"a": 1}}


def agent_data():
    return torch.load(resolve("pretrained:tictactoe"), weights_only=True)


def write_agent(tmp_path, data, name="bad.pt"):
    path = str(tmp_path / name)
    torch.save(data, path)
    return path


def refused(path, *words, call=None):
    """The CheckpointError message of loading `path` (load_agent unless `call`), which must name
    the file and every one of `words`."""
    with pytest.raises(CheckpointError) as err:
        (call or load_agent)(path)
    msg = str(err.value)
    assert msg.startswith(path + ":") or msg.startswith(path + " "), msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


@pytest.mark.parametrize("key", ["agent", "net", "options", "card"])
def test_an_agent_file_without_a_key_is_refused_by_name(tmp_path, key):
    data = agent_data()
    del data[key]
    path = write_agent(tmp_path, data)
    refused(path, f"lacks '{key}'")
    if key == "card":
        refused(path, "lacks 'card'", call=load_card)


@pytest.mark.parametrize("kind", sorted(WRONG))
@pytest.mark.parametrize("key", ["agent", "net", "options", "card"])
def test_an_agent_file_with_a_value_of_the_wrong_type_is_refused(tmp_path, key, kind):
    data = agent_data()
    data[key] = WRONG[kind]
    refused(write_agent(tmp_path, data), key)


@pytest.mark.parametrize("kind", sorted(WRONG))
@pytest.mark.parametrize("key", ["format", "version", "config", "state_dict"])
def test_a_net_payload_with_a_missing_or_wrong_entry_is_refused(tmp_path, key, kind):
    data = agent_data()
    data["net"][key] = WRONG[kind]
    refused(write_agent(tmp_path, data), key if key in ("config", "state_dict") else "net")
    del data["net"][key]
    refused(write_agent(tmp_path, data), key if key in ("config", "state_dict") else "net")


NET_FIELDS = [
    "trunk",
    "blocks",
    "channels",
    "expansion",
    "in_planes",
    "action_layout",
    "extra_actions",
    "policy_hidden",
    "value_hidden",
    "value_loss",
    "value_weight",
    "game",
    "kernel_size",
]


@pytest.mark.parametrize("kind", sorted(WRONG))
@pytest.mark.parametrize("field", NET_FIELDS)
def test_a_net_config_field_of_the_wrong_type_is_refused_by_name(tmp_path, field, kind):
    strings = ("trunk", "action_layout", "value_loss", "game")
    if (field, kind) in (("game", "None"), ("game", "str")) or (kind == "int" and field not in strings):
        pytest.skip("a valid value (a net of another shape: test_every_weight_... and the huge-config tests)")
    data = agent_data()
    data["net"]["config"] = json.dumps({**json.loads(data["net"]["config"]), field: WRONG[kind]})
    refused(write_agent(tmp_path, data), "corrupt zerogym network", "config", f"NetConfig.{field}")


@pytest.mark.parametrize(
    "field,value,limit",
    [
        ("blocks", 10**5, 256),
        ("channels", 10**6, 2048),
        ("kernel_size", 10**4 + 1, 25),
        ("in_planes", 10**6, 512),
        ("policy_hidden", 10**7, 2048),
        ("value_hidden", 10**7, 4096),
        ("extra_actions", 10**6, 16),
        ("expansion", 1e6, 16),
    ],
)
def test_a_config_claiming_a_huge_net_is_refused_before_anything_is_allocated(
    tmp_path, nets_only_on_meta, field, value, limit
):
    data = agent_data()
    data["net"]["config"] = json.dumps({**json.loads(data["net"]["config"]), field: value})
    path = write_agent(tmp_path, data)
    with nets_only_on_meta():
        refused(path, f"config.{field} = {value!r} is more than a network file may claim (at most {limit})")


def test_a_config_within_every_limit_but_too_big_in_total_is_refused_from_its_shape(tmp_path, nets_only_on_meta):
    data = agent_data()
    data["net"]["config"] = json.dumps({**json.loads(data["net"]["config"]), "blocks": 200, "channels": 2000})
    path = write_agent(tmp_path, data)
    with nets_only_on_meta():  # refused from the shapes alone: nothing built in memory
        refused(path, "config describes a network of", "more than a network file may hold")
    data = agent_data()  # plausible sizes, but not the weights the file holds
    data["net"]["config"] = json.dumps({**json.loads(data["net"]["config"]), "blocks": 3})
    refused(
        write_agent(tmp_path, data),
        "state_dict does not fit the network its config describes",
        "lacks 'trunk.3.conv1.weight'",
    )


def test_every_weight_of_the_wrong_shape_dtype_or_type_or_missing_is_named(tmp_path):
    names = list(agent_data()["net"]["state_dict"])
    assert len(names) > 20
    for name in names:
        for _what, change in (
            ("missing", None),
            ("shape", lambda t: torch.zeros(t.shape + (2,), dtype=t.dtype)),
            ("dtype", lambda t: torch.zeros(t.shape, dtype=torch.bool)),
            ("type", lambda t: t.tolist()),
        ):
            data = agent_data()
            sd = data["net"]["state_dict"]
            if change is None:
                del sd[name]
            else:
                sd[name] = change(sd[name])
            refused(write_agent(tmp_path, data), "corrupt zerogym network", repr(name))


@pytest.mark.parametrize(
    "options,words",
    [
        ("{not json", ["options is not valid JSON"]),
        ("[1, 2]", ["options must be a dict"]),
        ('{"simulations": "many"}', ["options", "simulations must be an integer"]),
        ('{"simulations": 0}', ["options", "simulations"]),
        ('{"bogus": 1}', ["options", "bogus"]),
    ],
)
def test_saved_options_the_agent_refuses_are_a_checkpoint_error(tmp_path, options, words):
    data = agent_data()
    data["options"] = options
    path = write_agent(tmp_path, data)
    refused(path, *words)


def test_an_override_replaces_a_bad_saved_option_and_a_bad_override_is_the_callers_error(tmp_path):
    data = agent_data()
    data["options"] = '{"simulations": "many"}'
    path = write_agent(tmp_path, data)
    assert load_agent(path, simulations=5).simulations == 5
    with pytest.raises(ValueError) as err:
        load_agent("pretrained:tictactoe", simulations=-1)
    assert not isinstance(err.value, CheckpointError)


@pytest.mark.parametrize(
    "card,words",
    [
        ("{not json", ["card is not valid JSON"]),
        ('["game", "tictactoe"]', ["card must be a dict"]),
        ('"tictactoe"', ["card must be a dict"]),
        ('{"game": 5}', ["card.game must be a string, got 5"]),
        ('{"game": "go", "kwargs": [9]}', ["card.kwargs must be a dict"]),
        ('{"training": "long"}', ["card.training must be a dict"]),
        ('{"parameters": -3}', ["card.parameters must be an integer >= 0"]),
    ],
)
def test_a_malformed_model_card_is_refused_by_every_reader(tmp_path, card, words):
    data = agent_data()
    data["card"] = card
    path = write_agent(tmp_path, data)
    refused(path, *words)
    refused(path, *words, call=load_card)
    refused(path, *words, call=lambda p: copy_agent(p, tmp_path / "copy.pt", dict))
    assert not (tmp_path / "copy.pt").exists()


def test_a_card_may_leave_out_or_null_what_it_does_not_know(tmp_path):
    data = agent_data()
    data["card"] = json.dumps({"game": None, "command": None, "anything": [1, {"x": None}]})
    path = write_agent(tmp_path, data)
    assert load_card(path)["anything"] == [1, {"x": None}]
    load_agent(path)


def test_a_bare_name_that_is_no_file_points_to_the_shipped_agents(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        CheckpointError, match="^connect_four: no such file; the shipped agent of that name is pretrained:connect_four$"
    ):
        load_agent("connect_four")
    with pytest.raises(
        CheckpointError,
        match="^connect4: no such file; shipped agents: (pretrained:[a-z0-9_]+, )*pretrained:connect_four, ",
    ):
        load_agent("connect4")
    with pytest.raises(CheckpointError, match=r"^runs/x/agent\.pt: no such file$"):
        load_agent("runs/x/agent.pt")
    save_agent(tmp_path / "connect_four", PolicyValueNet(for_game("tictactoe")), card={"game": "tictactoe"})
    assert load_agent("connect_four").name == "alphazero"  # a file of that name is the file


def test_an_alphazero_agent_on_another_game_names_both_games():
    agent = load_agent("pretrained:connect_four")
    env = zerogym.make("go", board_size=9)
    env.reset(seed=0)
    with pytest.raises(
        ValueError,
        match="^AlphaZeroAgent: this agent cannot play go .*network made for connect_four.*does not fit game 'go'",
    ):
        agent.act(env)


def test_an_agent_spec_that_is_a_shipped_agents_bare_name_says_how_to_name_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ValueError, match="^unknown agent spec 'go_5x5'; the shipped agent of that name is pretrained:go_5x5$"
    ):
        agent_from_spec("go_5x5", "go", {"board_size": 5})
