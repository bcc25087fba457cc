"""The zerogym command line."""

import importlib.util
import re
import subprocess
import sys

import numpy as np
import pytest

from zerogym_agents.cli import main as cli

NET4 = 'net={"blocks": 1, "channels": 4}'  # a 1x4 net: a step's time goes to the loop


def test_demo_plays_a_game_and_reports_the_score(capsys):
    cli.main(["demo", "--board-size", "5", "--no-bench", "--no-train", "--seed", "3"])
    out = capsys.readouterr().out
    assert "A B C D E" in out
    assert "Tromp-Taylor area: black" in out and "score" in out


def test_unknown_command_fails_with_usage():
    with pytest.raises(SystemExit) as e:
        cli.main(["fly"])
    assert e.value.code == 2


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "zerogym_agents.cli.main", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and all(c in out.stdout for c in ("demo", "bench", "arena"))
    assert "train an agent (alphazero, pg)" in out.stdout and "--debug" in out.stdout


def subcommands(parser, words=()):
    """(words, parser) of every command and sub-command of `parser`, e.g. (("train", "pg"), its parser)."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*words, name), sub
                yield from subcommands(sub, (*words, name))


# what a new user types first answers without loading torch (seconds on a busy machine)
NO_TORCH = """
import argparse, sys
from zerogym_agents.cli.main import main, parser

def commands(p, words=()):
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*words, name)
                yield from commands(sub, (*words, name))

argvs = [["--help"], ["--version"], ["fly"], ["train", "alphazero", "--game"], ["play", "--human", "third"]]
argvs += [[*words, "--help"] for words in commands(parser())]
for argv in argvs:
    try:
        main(argv)
    except SystemExit as e:
        assert e.code == (2 if "--help" not in argv and "--version" not in argv else 0), (argv, e.code)
    assert "torch" not in sys.modules, argv
print(len(argvs), "command lines")
"""


def test_help_version_and_argument_errors_do_not_import_torch():
    out = subprocess.run([sys.executable, "-c", NO_TORCH], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-3]) > 15  # every sub-command's --help was asked


def test_version_prints_the_package_version():
    import zerogym

    out = subprocess.run([sys.executable, "-m", "zerogym_agents.cli.main", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"zerogym {zerogym.__version__}"


def test_every_option_of_every_command_has_help():
    import argparse

    missing = [
        (words, action.option_strings or action.dest)
        for words, sub in subcommands(cli.parser())
        for action in sub._actions
        if not action.help and not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
    ]
    assert missing == []
    demo = dict(subcommands(cli.parser()))[("demo",)].format_help()
    assert "side of the Go board" in demo and "seed of the random game" in demo


def test_arena_help_names_its_default_folder_which_git_ignores():
    import os

    out = subprocess.run(
        [sys.executable, "-m", "zerogym_agents.cli.main", "arena", "--help"], capture_output=True, text=True
    )
    assert "(default arena_results)" in " ".join(out.stdout.split())
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    with open(os.path.join(root, ".gitignore")) as f:
        assert "arena_results/" in f.read().split()


@pytest.mark.parametrize("command", [["arena"], ["train", "pg"], ["train", "alphazero"]])
def test_game_help_lists_every_registered_game(command):
    from zerogym.registry import GAMES

    out = subprocess.run(
        [sys.executable, "-m", "zerogym_agents.cli.main", *command, "--help"], capture_output=True, text=True
    )
    text = " ".join(out.stdout.split())
    assert out.returncode == 0 and all(re.search(rf"\b{name}\b", text) for name in GAMES)


def test_train_alphazero_summary_rounds_its_losses_and_never_prints_none(tmp_path, capsys):
    tiny = [
        *"--no-progress --set simulations=4 concurrent_games=8 batch_size=8 min_buffer=8 checkpoint_every=5".split(),
        NET4,
    ]
    cli.main(["train", "alphazero", "--game", "tictactoe", *tiny, "max_steps=2", "--out", str(tmp_path / "a")])
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert "None" not in line and "no training step yet (it starts once the replay buffer holds min_buffer" in line
    cli.main(["train", "alphazero", "--game", "tictactoe", *tiny, "max_steps=10", "--out", str(tmp_path / "b")])
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.search(
        r"; last loss \d+\.\d{3} \(policy \d+\.\d{3}, value \d+\.\d{3}\); checkpoint and agent.pt in ", line
    ), line


def test_train_alphazero_summary_takes_the_last_interval_that_trained():
    from types import SimpleNamespace

    from zerogym_agents.cli.train import summary_line

    trained = {"loss": 0.51234, "policy_loss": 0.3, "value_loss": 0.21234}
    idle = {"loss": None, "policy_loss": None, "value_loss": None}  # a short interval without an SGD step
    trainer = SimpleNamespace(
        history=[trained, idle], games=9, positions=40, train_steps=3, cfg=SimpleNamespace(min_buffer=8)
    )
    assert "last loss 0.512 (policy 0.300, value 0.212)" in summary_line(trainer, "out")
    trainer.history = [idle]
    assert "no training step yet" in summary_line(trainer, "out")


def test_demo_trains_then_writes_a_round_robin_report(tmp_path, capsys):
    out = tmp_path / "demo"
    cli.main(
        ["demo", "--board-size", "5", "--no-bench", "--minutes", "0.05", "--games-per-pair", "2", "--out", str(out)]
    )
    text = capsys.readouterr().out
    assert "self-play games" in text
    report = (out / "report.md").read_text()
    for name in ("alphazero", "uct:200", "greedy", "random"):
        assert f"| {name} |" in report
    assert (out / "elo.png").stat().st_size > 0
    assert (out / "run" / "agent.pt").exists()


# ---- a missing or malformed checkpoint: one line on stderr, a non-zero exit, no traceback ---------------


def train_az(out, *extra):
    return ["train", "alphazero", "--game", "tictactoe", "--out", str(out), "--no-progress", *extra]


def test_train_alphazero_resume_of_a_missing_run_says_so_in_one_line(tmp_path):
    with pytest.raises(SystemExit) as e:
        cli.main(train_az(tmp_path / "nothing", "--resume"))
    msg = str(e.value)
    assert msg.startswith("zerogym train alphazero: error: ") and "\n" not in msg
    assert f"{tmp_path / 'nothing' / 'checkpoint.pt'}: no such file" in msg
    assert not (tmp_path / "nothing").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match=r"zerogym train alphazero: .*empty/checkpoint\.pt: no such file"):
        cli.main(train_az(tmp_path / "empty", "--resume"))


def test_train_alphazero_resume_of_a_malformed_checkpoint_says_what_is_wrong(tmp_path):
    from zerogym_agents.cli.main import parser
    from zerogym_agents.cli.train import alphazero_config
    from zerogym_agents.core.checkpoint import save_checkpoint

    run = tmp_path / "run"
    config = alphazero_config(parser().parse_args(train_az(run)))  # what the command resumes with
    save_checkpoint(run / "checkpoint.pt", "alphazero", {"config": config.to_json(), "pool": {}})
    with pytest.raises(SystemExit) as e:
        cli.main(train_az(run, "--resume"))
    msg = str(e.value)
    assert e.value.code == 1 and "\n" not in msg
    assert msg.startswith(f"zerogym train alphazero: error: {run / 'checkpoint.pt'}: the file lacks 'net'")
    save_checkpoint(run / "checkpoint.pt", "pg", {})
    with pytest.raises(
        SystemExit,
        match=r"zerogym train alphazero: .*checkpoint\.pt: a 'pg' checkpoint, expected "
        r"'alphazero'",
    ):
        cli.main(train_az(run, "--resume"))
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(
        SystemExit,
        match=r"zerogym train alphazero: error: --config .*list\.json: expected a JSON "
        r"object",
    ):
        cli.main(train_az(tmp_path / "new", "--config", str(tmp_path / "list.json")))


def test_train_alphazero_on_a_corrupt_checkpoint_exits_with_one_line_on_stderr(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint.pt").write_bytes(b"\x80\x02 not a checkpoint at all")
    out = subprocess.run(
        [sys.executable, "-m", "zerogym_agents.cli.main", *train_az(run, "--resume")], capture_output=True, text=True
    )
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 1 and "Traceback" not in out.stderr and len(lines) == 1, out.stderr
    assert lines[0].startswith(
        f"zerogym train alphazero: error: {run / 'checkpoint.pt'} is not a readable zerogym checkpoint"
    )


def test_a_checkpoint_error_no_command_reported_still_ends_in_one_line(tmp_path, monkeypatch):
    from zerogym_agents.cli import arena as arena_cli
    from zerogym_agents.core.checkpoint import CheckpointError

    def broken(args):
        raise CheckpointError("x.pt: the file lacks 'net'")

    monkeypatch.setattr(arena_cli, "run_arena", broken)
    with pytest.raises(SystemExit) as e:
        cli.main(["arena", "--game", "tictactoe", "--agents", "random", "random"])
    assert e.value.code == 1 and str(e.value) == "zerogym arena: error: x.pt: the file lacks 'net'"
    monkeypatch.setattr(arena_cli, "run_arena", lambda args: int("not a number"))  # other errors propagate
    with pytest.raises(ValueError, match="invalid literal"):
        cli.main(["arena", "--game", "tictactoe", "--agents", "random", "random"])


def test_arena_and_play_refuse_a_malformed_agent_file_in_one_line(tmp_path):
    import torch
    from zerogym_agents.agents.saved import resolve

    data = torch.load(resolve("pretrained:tictactoe"), weights_only=True)
    data["card"] = "[1, 2]"
    torch.save(data, tmp_path / "bad.pt")
    with pytest.raises(SystemExit) as e:
        cli.main(
            [
                "arena",
                "--game",
                "tictactoe",
                "--agents",
                str(tmp_path / "bad.pt"),
                "random",
                "--no-progress",
                "--out",
                str(tmp_path / "arena"),
            ]
        )
    assert e.value.code == 1
    assert str(e.value) == f"zerogym arena: error: {tmp_path / 'bad.pt'}: card must be a dict, got a list of 2"


# ---- a saved agent's model card gives the game's kwargs; another board is announced or refused --------------


def zerogym(*argv, stdin=None, cwd=None):
    """Run the real command line; returns the CompletedProcess (text)."""
    return subprocess.run(
        [sys.executable, "-m", "zerogym_agents.cli.main", *map(str, argv)],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=cwd,
    )


def test_play_takes_the_board_size_from_the_agents_card():
    out = zerogym("play", "go", "--agent", "pretrained:go_9x9", stdin="quit\n")
    assert out.returncode == 0, out.stderr
    assert "Go: 9x9, komi 7.5" in out.stdout and "19x19" not in out.stdout
    assert "as in the model card of pretrained:go_9x9" in out.stdout
    out = zerogym("play", "othello", "--agent", "pretrained:othello_6x6", stdin="quit\n")
    assert out.returncode == 0 and "Othello: 6x6" in out.stdout, out.stderr


def test_play_on_another_board_size_says_the_agent_plays_it_zero_shot():
    out = zerogym("play", "go", "--agent", "pretrained:go_5x5", "--kwargs", "board_size=9", stdin="quit\n")
    assert out.returncode == 0, out.stderr
    assert (
        "note: pretrained:go_5x5 was trained on go board_size=5; here it plays board_size=9 zero-shot" in out.stdout
    ) and "Go: 9x9" in out.stdout


def test_play_refuses_an_agent_of_another_game_or_board_in_one_line(tmp_path):
    out = zerogym("play", "othello", "--agent", "pretrained:go_5x5", stdin="quit\n")
    lines = out.stderr.strip().splitlines()
    assert out.returncode != 0 and len(lines) == 1 and lines[0].startswith("zerogym play: "), out.stderr
    assert out.returncode == 2 and lines[0] == "zerogym play: error: pretrained:go_5x5 plays go, not othello"
    comp = tmp_path / "comp.pt"  # a ZetaGo composite runs on its one board size only
    assert (
        zerogym("transfer", "composite", "--in", "pretrained:go_5x5", "--big-size", "7", "--out", comp).returncode == 0
    )
    out = zerogym("play", "go", "--agent", comp, "--kwargs", "board_size=9", stdin="quit\n")
    lines = out.stderr.strip().splitlines()
    assert out.returncode != 0 and len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert "was made for go board_size=7 and its network plays no other board" in lines[0]
    out = zerogym("play", "go", "--agent", comp, stdin="quit\n")
    assert out.returncode == 0 and "Go: 7x7" in out.stdout, out.stderr


def tiny_go_agent(path, board_size):
    from zerogym_agents.nets import PolicyValueNet, for_game
    from zerogym_agents.agents.saved import save_agent

    net = PolicyValueNet(for_game("go", trunk="resnet", blocks=1, channels=4))
    save_agent(path, net, {"simulations": 2}, {"game": "go", "kwargs": {"board_size": board_size}})
    return path


def test_arena_takes_the_board_from_the_cards_and_refuses_cards_that_disagree(tmp_path):
    a5, b5, a7 = (tiny_go_agent(tmp_path / n, s) for n, s in (("a5.pt", 5), ("b5.pt", 5), ("a7.pt", 7)))
    arena = "arena --game go --games 2 --no-progress".split()
    out = zerogym(*arena, "--agents", a5, b5, "random", "--out", tmp_path / "arena")
    assert out.returncode == 0, out.stderr
    assert f"playing go board_size=5, as in the model card of {a5}" in out.stdout
    assert "Arena: go (board_size=5)" in (tmp_path / "arena" / "report.md").read_text()
    out = zerogym(*arena, "--agents", a5, a7, "--out", tmp_path / "x")
    lines = out.stderr.strip().splitlines()
    assert out.returncode != 0 and len(lines) == 1 and "choose one with --kwargs" in lines[0], out.stderr
    out = zerogym(*arena, "--kwargs", "board_size=7", "--agents", a5, a7, "--out", tmp_path / "arena7")
    assert out.returncode == 0, out.stderr
    assert f"note: {a5} was trained on go board_size=5; here it plays board_size=7 zero-shot" in out.stdout
    assert str(a7) + " was" not in out.stdout


# ---- one error path: a user's mistake is one line and status 2 (arguments) or 1 (a file); bugs keep tracebacks ----


@pytest.mark.parametrize(
    "argv, words",
    [
        (["train", "alphazero", "--game", "chess"], "zerogym train alphazero: error: unknown game 'chess'"),
        (
            ["train", "alphazero", "--game", "tictactoe", "--kwargs", "board_size=1"],
            "zerogym train alphazero: error: tictactoe: board_size must be in 2..25, got 1",
        ),
        (
            ["train", "alphazero", "--game", "tictactoe", "--set", "lr=abc"],
            "zerogym train alphazero: error: AlphaZeroConfig.lr must be a number >= 0, got 'abc'",
        ),
        (
            ["train", "pg", "--game", "tictactoe", "--kwargs", "boardsize=3"],
            "zerogym train pg: error: PGConfig.game_kwargs: tictactoe has no kwargs ['boardsize']; allowed: board_size",
        ),
        (["play", "go", "--kwargs", "boardsize=9"], "zerogym play: error: go: unknown keyword argument 'boardsize'"),
        (
            ["arena", "--game", "go", "--kwargs", "boardsize=9", "--agents", "random", "greedy"],
            "zerogym arena: error: go: unknown keyword argument 'boardsize' (did you mean board_size?)",
        ),
    ],
)
def test_bad_arguments_are_one_line_on_stderr_with_status_2(tmp_path, argv, words):
    out = zerogym(*argv, "--out", tmp_path / "out") if argv[0] != "play" else zerogym(*argv, stdin="quit\n")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert lines[0].startswith(words)
    assert not (tmp_path / "out").exists()


def test_debug_shows_the_traceback_and_keeps_the_exit_status(tmp_path):
    for argv in (
        ["--debug", "play", "go", "--kwargs", "boardsize=9"],
        ["play", "go", "--kwargs", "boardsize=9", "--debug"],
    ):
        out = zerogym(*argv, stdin="quit\n")
        assert out.returncode == 2 and "Traceback" in out.stderr and "KwargsError" in out.stderr, out.stderr
        assert out.stderr.strip().splitlines()[-1].startswith("zerogym play: error: go: unknown keyword argument")
    config = tmp_path / "missing.json"
    out = zerogym("--debug", "train", "pg", "--game", "tictactoe", "--config", config, "--out", tmp_path / "r")
    assert out.returncode == 1 and "FileNotFoundError" in out.stderr, out.stderr
    out = zerogym("train", "pg", "--game", "tictactoe", "--config", tmp_path / "missing.json", "--out", tmp_path / "r")
    assert out.returncode == 1, out.stderr
    assert out.stderr.strip().splitlines() == [
        f"zerogym train pg: error: {tmp_path / 'missing.json'}: no such file or directory"
    ]


def test_bugs_keep_their_tracebacks_and_ctrl_c_exits_130_quietly(monkeypatch, capsys):
    from zerogym_agents.cli import arena as arena_cli

    arena = ["arena", "--game", "tictactoe", "--agents", "random", "random"]
    monkeypatch.setattr(arena_cli, "run_arena", lambda args: np.zeros(3).reshape(2, 2))  # raised inside numpy
    with pytest.raises(ValueError, match="cannot reshape"):
        cli.main(arena)
    monkeypatch.setattr(arena_cli, "run_arena", lambda args: len(None))  # a plain TypeError
    with pytest.raises(TypeError):
        cli.main(arena)

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena_cli, "run_arena", interrupted)
    with pytest.raises(SystemExit) as e:
        cli.main(arena)
    assert e.value.code == 130 and capsys.readouterr().err == ""
    with pytest.raises(KeyboardInterrupt):
        cli.main(["--debug", *arena])


# ---- run folders: a new one starts a run; an existing run needs --resume or --force -------------------------

TINY_AZ = [
    *"--set max_steps=2 simulations=4 concurrent_games=4 batch_size=8 min_buffer=8 checkpoint_every=1".split(),
    NET4,
]


def test_training_into_an_existing_run_folder_needs_resume_or_force(tmp_path, capsys):
    run = tmp_path / "run"
    cli.main(train_az(run, *TINY_AZ))
    assert (run / "checkpoint.pt").exists() and len(list((run / "tb").iterdir())) == 1
    (run / "arena").mkdir()
    (run / "arena" / "report.md").write_text("an earlier run's arena")
    capsys.readouterr()
    out = zerogym(*train_az(run, *TINY_AZ))  # the real command line: refused, nothing touched
    assert out.returncode == 2 and out.stderr.strip().splitlines() == [
        f"zerogym train alphazero: error: {run} already holds a run: add --resume to continue it, or --force to "
        f"delete it and start over"
    ], out.stderr
    assert (run / "arena" / "report.md").exists()
    cli.main(train_az(run, *TINY_AZ, "--resume"))  # continues
    assert len(list((run / "tb").iterdir())) == 2
    cli.main(train_az(run, *TINY_AZ, "--force"))  # starts over: no stale arena or TensorBoard events
    assert sorted(p.name for p in run.iterdir()) == [
        "agent.json",
        "agent.pt",
        "checkpoint.pt",
        "config.json",
        "tb",
        "training.png",
    ]
    assert len(list((run / "tb").iterdir())) == 1
    with pytest.raises(SystemExit) as e:
        cli.main(train_az(run, "--resume", "--force"))
    assert e.value.code == 2  # argparse: one or the other


def test_resume_with_nothing_to_resume_says_how_to_start(tmp_path):
    with pytest.raises(SystemExit) as e:
        cli.main(train_az(tmp_path / "new", "--resume"))
    assert e.value.code == 2 and str(e.value) == (
        f"zerogym train alphazero: error: {tmp_path / 'new' / 'checkpoint.pt'}: no such file, nothing to resume in "
        f"{tmp_path / 'new'}; to start a run there, leave out --resume"
    )
    (tmp_path / "crashed").mkdir()
    (tmp_path / "crashed" / "config.json").write_text("{}")  # a run that never reached its first checkpoint
    with pytest.raises(SystemExit, match="to start a run there, use --force instead of --resume"):
        cli.main(["train", "pg", "--game", "tictactoe", "--out", str(tmp_path / "crashed"), "--resume"])


def test_train_pg_follows_the_same_run_folder_rule(tmp_path, capsys):
    run = tmp_path / "pg"
    pg = [
        *"train pg --game tictactoe --set num_envs=4 max_steps=1 checkpoint_every=1".split(),
        NET4,
        "--out",
        str(run),
        "--no-progress",
    ]
    cli.main(pg)
    with pytest.raises(SystemExit, match="already holds a run: add --resume"):
        cli.main(pg)
    (run / "stale.txt").write_text("x")
    cli.main([*pg, "--force"])
    assert not (run / "stale.txt").exists() and (run / "checkpoint.pt").exists()


# ---- the demo: a speed table it can measure, or a note; a closing hint that runs as printed -------------------


def test_bench_is_installed_and_writes_only_where_it_is_told(tmp_path, monkeypatch):
    out = subprocess.run(
        [sys.executable, "-m", "zerogym_agents.cli", "bench", "--quick", "--seconds", "0.05"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "| Connect Four 6x7 |" in out.stdout and list(tmp_path.iterdir()) == []
    from zerogym_agents.cli import bench  # the full table (measured here by a stand-in) goes to --out

    row = ("Connect Four 6x7", {"zg_env": 2e5, "pz_env": 1e4, "zg_env_seeded": 2e5, "pz_env_seeded": 1e4})
    monkeypatch.setattr(bench, "measure", lambda *args, **kwargs: [row])
    monkeypatch.setattr(bench, "plot", lambda rows, path: open(path, "w").close())
    written = tmp_path / "speed"
    monkeypatch.setattr(sys, "argv", ["zerogym", "bench", "--no-pgx", "--out", str(written)])
    cli.main(sys.argv[1:])
    assert sorted(p.name for p in written.iterdir()) == ["env_speed.md", "env_speed.png"]
    assert f"zerogym bench --seconds 3 --no-pgx --out {written}" in (written / "env_speed.md").read_text()


def test_demo_speed_table_leaves_out_what_it_did_not_measure():
    out = zerogym("demo", "--board-size", "5", "--no-train", "--seconds", "0.05")
    assert out.returncode == 0, out.stderr
    table = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| game | zerogym env() |") and "≥" not in table[0] and "cores" not in table[0]
    assert "N=None" not in out.stdout and "Targets: zerogym env() at least 10x PettingZoo env()" in out.stdout
    # the demo measures no Pgx: nothing it prints may compare with it (OpenSpiel only where it is installed)
    assert "Pgx" not in out.stdout, out.stdout
    if importlib.util.find_spec("pyspiel") is not None:
        assert table[0].endswith("| vector ratio vs OpenSpiel |") and "at least 3x OpenSpiel." in out.stdout


def test_demo_closing_hint_runs_zerogym_the_way_it_was_run(tmp_path):
    import os

    script = os.path.join(os.path.dirname(sys.executable), "zerogym")
    if not os.path.isfile(script):
        pytest.skip("no zerogym script beside this Python")
    env = {
        **os.environ,
        "PATH": os.pathsep.join(
            p
            for p in os.environ.get("PATH", "").split(os.pathsep)
            if os.path.realpath(p) != os.path.realpath(os.path.dirname(script))
        ),
    }
    out = subprocess.run(
        [
            script,
            "demo",
            "--board-size",
            "5",
            "--no-bench",
            "--minutes",
            "0.01",
            "--games-per-pair",
            "1",
            "--out",
            str(tmp_path / "demo"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert f"play it: {script} play connect_four --agent {tmp_path / 'demo' / 'run' / 'agent.pt'}" in out.stdout


def test_gtp_starts_on_the_board_of_the_agents_card_and_notes_another_size(tmp_path):
    out = zerogym("gtp", "--agent", "pretrained:go_5x5", stdin="showboard\nquit\n")
    assert out.returncode == 0 and " 5 . . . . . 5" in out.stdout and " 6 " not in out.stdout, out.stderr
    out = zerogym("gtp", "--agent", "pretrained:go_5x5", "--board-size", "9", stdin="showboard\nquit\n")
    assert out.returncode == 0 and " 9 . . . . . . . . . 9" in out.stdout
    assert out.stderr.strip() == (
        "zerogym gtp: note: pretrained:go_5x5 was trained on go board_size=5; here it plays "
        "board_size=9 zero-shot (its network runs on any board size)"
    )


# ---- stopping a training run: Ctrl-C and --max-seconds -----------------------------------------------
AZ_TINY = ["batch_size=8", "min_buffer=8", NET4]
LONG = "max_steps=100000 checkpoint_every=100000"  # out of reach: the runs stop only when told
TRAIN_LONG = {
    "alphazero": [*f"train alphazero --game tictactoe --set {LONG} simulations=4 concurrent_games=8".split(), *AZ_TINY],
    "pg": [*f"train pg --algo reinforce --game tictactoe --set {LONG} num_envs=4".split(), NET4],
}


@pytest.mark.parametrize("algo", ["alphazero", "pg"])
def test_ctrl_c_saves_a_checkpoint_that_resume_continues(tmp_path, algo):
    import signal
    import time

    out = tmp_path / "run"
    argv = [sys.executable, "-m", "zerogym_agents.cli.main", *TRAIN_LONG[algo], "--no-progress", "--out", str(out)]
    # the child gets Ctrl-C's default action even where this process ignores it (started with nohup or
    # in the background), as a terminal's foreground job has it
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.time() + 120
        while not (out / "tb").exists() and time.time() < deadline:  # the run has started
            time.sleep(0.2)
        time.sleep(2.0)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()  # no run left behind when the test fails
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "stopping after this step to save a checkpoint" in stderr
    saved = re.search(r"saved at step (\d+) in (\S+): the same command with --resume continues the run", stderr)
    assert saved and saved.group(2) == str(out), stderr
    from zerogym_agents.agents.saved import load_card

    step = int(saved.group(1))  # checkpoint_every was never reached: saved on Ctrl-C
    assert step >= 1 and load_card(str(out / "agent.pt"))["training"]["steps"] == step
    more = zerogym(
        *[a if not a.startswith("max_steps=") else f"max_steps={step + 2}" for a in TRAIN_LONG[algo]],
        "--no-progress",
        "--out",
        out,
        "--resume",
    )
    assert more.returncode == 0, more.stderr
    assert load_card(str(out / "agent.pt"))["training"]["steps"] == step + 2


@pytest.mark.parametrize("algo", ["alphazero", "pg"])
def test_max_seconds_stops_a_run_on_the_clock_with_a_checkpoint(tmp_path, algo):
    out = tmp_path / "run"
    done = zerogym(*TRAIN_LONG[algo], "--no-progress", "--max-seconds", "3", "--out", out)
    assert done.returncode == 0, done.stderr
    assert (out / "checkpoint.pt").exists() and (out / "agent.pt").exists()
    bad = zerogym(*TRAIN_LONG[algo], "--max-seconds", "0", "--out", tmp_path / "other")
    assert bad.returncode == 2 and "--max-seconds: must be a number of seconds > 0, got '0'" in bad.stderr


# one step of each takes minutes: a million simulations per move; 1024 games of 19x19 Go played to the end
SLOW = "simulations=1000000 concurrent_games=2 max_steps=1 pool_fraction=0"
TRAIN_SLOW = {
    "alphazero": [*f"train alphazero --game connect_four --set {SLOW}".split(), *AZ_TINY],
    "pg": [*"train pg --game go --kwargs board_size=19 --set num_envs=1024 max_steps=1".split(), NET4],
}


@pytest.mark.parametrize("algo", ["alphazero", "pg"])
def test_max_seconds_stops_within_a_long_step_and_saves(tmp_path, algo):
    import time
    from zerogym_agents.agents.saved import load_card

    out = tmp_path / "run"
    t0 = time.perf_counter()
    done = zerogym(*TRAIN_SLOW[algo], "--no-progress", "--max-seconds", "3", "--out", out)
    # generous (the process also starts Python and torch): only a run that waits for its step to end fails it
    assert time.perf_counter() - t0 < 3 + 40
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert (out / "checkpoint.pt").exists() and load_card(str(out / "agent.pt"))["training"]["steps"] == 0
