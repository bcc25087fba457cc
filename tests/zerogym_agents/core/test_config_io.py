"""Declared config fields: every bound is enforced, at its edge, by the constructor, by from_dict and by
the file checks; the command-line options of `zerogym transfer run` are the TransferSettings fields."""

import argparse
import dataclasses
import importlib
import json
import math
import pkgutil
import re
import shlex
from pathlib import Path

import pytest

import zerogym_agents
from zerogym_agents.alphazero.config import AlphaZeroConfig
from zerogym_agents.core.checkpoint import CheckpointError
from zerogym_agents.core.devices import DeviceName
from zerogym_agents.core.config_io import (
    Check,
    Dict,
    Flag,
    Integer,
    JsonConfig,
    ListOf,
    Maybe,
    Nested,
    Number,
    OneOf,
    Text,
    setting,
)
from zerogym_agents.core.file_checks import Config, check
from zerogym_agents.nets.model import NetConfig
from zerogym_agents.pg.config import PGConfig
from zerogym_agents.nets.composite import CompositeConfig
from zerogym_agents.cli.transfer_run import add_run_parser, command_line, settings_from_args
from zerogym_agents.transfer.settings import TransferSettings

CONFIGS = (AlphaZeroConfig, PGConfig, NetConfig, CompositeConfig, TransferSettings)
# what each config needs beyond its defaults, and per field what the field's edge values need
BASE = {
    CompositeConfig: {"small": NetConfig(), "small_size": 1, "big_size": 9},
    TransferSettings: {"source": "x.pt", "big_size": 9},
}
NEEDS = {
    (AlphaZeroConfig, "min_buffer"): {"batch_size": 1},  # min_buffer >= batch_size
    # several actions per cell with the cell_moves layout, one with the others
    (NetConfig, "action_layout"): lambda layout: {"actions_per_cell": 3} if layout == "cell_moves" else {},
}


def needs(cls, name, value):
    """The other fields a value of `name` needs."""
    need = NEEDS.get((cls, name), {})
    return need(value) if callable(need) else need


EPS = 1e-9


def make(cls, **fields):
    return cls(**{**BASE.get(cls, {}), **fields})


def edges(c, default=None):
    """(refused, accepted): values just outside and just inside what check `c` allows."""
    if isinstance(c, Maybe):
        refused, accepted = edges(c.check, default)
        return [v for v in refused if v is not None], accepted + [None]
    if isinstance(c, ListOf):
        refused, accepted = edges(c.item, (default or [None])[0])
        repeat = [[accepted[0], accepted[0]]] if c.distinct else []
        return [[v] for v in refused] + [[], accepted[0]] + repeat, [[v] for v in accepted] + [list(accepted)] * (
            len(accepted) > 1
        )
    if isinstance(c, Integer):
        refused = [
            x for x in (c.low is not None and c.low - 1, c.high is not None and c.high + 1) if x is not False
        ] + [2.5, True, "3"]
        return refused, [x for x in (c.low, c.high) if x is not None] or [0]
    if isinstance(c, Number):
        refused = [
            x
            for x in (c.low is not None and c.low - EPS, c.high is not None and c.high + EPS, c.above, c.below)
            if x is not False and x is not None
        ]
        accepted = [
            x
            for x in (c.low, c.high, c.above is not None and c.above + EPS, c.below is not None and c.below - EPS)
            if x is not False and x is not None
        ]
        return refused + [math.inf, math.nan, True, "1"], accepted or [1.0]
    if isinstance(c, OneOf):
        return ["no-such", None], list(c.options)
    if isinstance(c, Text):
        return [5, None] + ([] if c.empty else [""]), [default if isinstance(default, str) else "x.pt"]
    if isinstance(c, Flag):
        return ["yes", 1, None], [True, False]
    if isinstance(c, Dict):
        return [[], "x", None], [{}]
    if isinstance(c, Nested):
        return [5, "x"], [c.cls(), c.cls().to_dict()]
    if isinstance(c, DeviceName):
        return ["gpu", "cuda:", "cuda:x", "CPU", 0, None], ["auto", "cpu", "cuda", "cuda:1"]
    raise AssertionError(f"no edge values for {type(c).__name__}")


def default_of(f):
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def edge_cases():
    out = []
    for cls in CONFIGS:
        for f in dataclasses.fields(cls):
            refused, accepted = edges(f.metadata["check"], default_of(f))
            out += [pytest.param(cls, f.name, v, False, id=f"{cls.__name__}.{f.name}={v!r}-refused") for v in refused]
            out += [pytest.param(cls, f.name, v, True, id=f"{cls.__name__}.{f.name}={v!r}-accepted") for v in accepted]
    return out


def all_subclasses(cls):
    return {c for s in cls.__subclasses__() for c in {s} | all_subclasses(s)}


def test_every_config_class_is_covered_and_every_field_declares_its_check():
    for info in pkgutil.walk_packages(zerogym_agents.__path__, "zerogym_agents."):
        try:
            importlib.import_module(info.name)
        except Exception:  # optional extras
            pass
    found = {c for c in all_subclasses(JsonConfig) if c.__module__.startswith("zerogym_agents.")}
    assert set(CONFIGS) <= found
    for cls in found:
        for f in dataclasses.fields(cls):
            assert isinstance(f.metadata.get("check"), Check), f"{cls.__name__}.{f.name}"
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
                assert f.metadata["check"](default_of(f)) == default_of(f), f"{cls.__name__}.{f.name}"
    for cls in CONFIGS:
        make(cls)


@pytest.mark.parametrize("cls,name,value,ok", edge_cases())
def test_each_declared_bound_is_enforced_at_its_edge(cls, name, value, ok):
    fields = {**needs(cls, name, value), name: value}
    if ok:
        cfg = make(cls, **fields)
        stored = getattr(cfg, name)
        if isinstance(stored, NetConfig):
            assert stored == NetConfig()
        elif value is not None:  # None may stand for a default made of other fields
            assert stored == (tuple(value) if isinstance(value, list) else value)
        assert type(cfg).from_json(cfg.to_json()) == cfg
    else:
        with pytest.raises(ValueError) as err:
            make(cls, **fields)
        message = str(err.value)
        assert message.startswith(f"{cls.__name__}.{name} must be ") and message.endswith(f", got {value!r}"), message


# hand-chosen edges: (class, field, just outside, just inside, what the message says is allowed)
EDGES = [
    (AlphaZeroConfig, "simulations", 0, 1, "an integer >= 1"),
    (AlphaZeroConfig, "min_buffer", 0, 1, "an integer >= 1"),
    (AlphaZeroConfig, "temperature_moves", -1, 0, "an integer >= 0"),
    (AlphaZeroConfig, "lr", -0.001, 0.0, "a number >= 0"),
    (AlphaZeroConfig, "no_pass_fraction", 1.001, 1.0, r"a number in [0, 1]"),
    (AlphaZeroConfig, "pool_fraction", 1.0, 0.999, "a number >= 0 and < 1"),
    (AlphaZeroConfig, "dirichlet_epsilon", 1.001, 1.0, "a number in [0, 1]"),
    (AlphaZeroConfig, "init_from", "", "pretrained:go_5x5", "a file path or pretrained:NAME"),
    (PGConfig, "lr", 0.0, 1e-12, "a number > 0"),
    (PGConfig, "gamma", 0.0, 1.0, "a number > 0 and <= 1"),
    (PGConfig, "gamma", 1.001, 0.001, "a number > 0 and <= 1"),
    (PGConfig, "clip_range", 0, 0.001, "a number > 0"),
    (PGConfig, "ppo_batch_size", 1, 2, "an integer >= 2"),
    (PGConfig, "lr_final", -0.001, 0.0, "a number >= 0"),
    (PGConfig, "algo", "a2c", "ppo", "one of 'reinforce', 'reinforce-baseline', 'ppo'"),
    (NetConfig, "blocks", -1, 0, "an integer >= 0"),
    (NetConfig, "channels", 0, 1, "an integer >= 1"),
    (NetConfig, "expansion", 0, 0.001, "a number > 0"),
    (NetConfig, "kernel_size", 0, 1, "an integer >= 1"),
    (CompositeConfig, "big_size", 1, 2, "an integer >= 2"),
    (CompositeConfig, "head_layers", 0, 1, "an integer >= 1"),
    (CompositeConfig, "small", {"blocks": -1}, {"blocks": 0}, "an integer >= 0"),
    (TransferSettings, "simulations", 401, 400, "an integer in [1, 400]"),
    (TransferSettings, "big_size", 1, 2, "an integer >= 2"),
    (TransferSettings, "reference_games", -1, 0, "an integer >= 0"),
    (TransferSettings, "minutes", 0, 0.001, "a number > 0"),
    (TransferSettings, "curriculum", (1,), (2,), "an integer >= 2"),
    (TransferSettings, "methods", ("scratch", "scratch"), ("grown",), "a non-empty list of distinct values"),
]


@pytest.mark.parametrize(
    "cls,name,outside,inside,allowed", EDGES, ids=[f"{c.__name__}.{n}={o!r}" for c, n, o, *_ in EDGES]
)
def test_hand_chosen_edges(cls, name, outside, inside, allowed):
    with pytest.raises(ValueError) as err:
        make(cls, **{**needs(cls, name, outside), name: outside})
    assert allowed in str(err.value) and name in str(err.value)
    make(cls, **{**needs(cls, name, inside), name: inside})


def test_values_are_stored_in_their_plain_form():
    np = pytest.importorskip("numpy")
    cfg = PGConfig(num_envs=np.int64(8), lr=np.float32(0.5), momentum=1)
    assert type(cfg.num_envs) is int and type(cfg.lr) is float and type(cfg.momentum) is float
    s = TransferSettings(source="x.pt", big_size=np.int64(9), methods=["scratch"], curriculum=[np.int64(7)])
    assert s.methods == ("scratch",) and s.curriculum == (7,) and type(s.big_size) is int
    assert s.to_dict()["methods"] == ["scratch"] and json.loads(s.to_json())["curriculum"] == [7]


def test_configs_read_from_files_are_checked_the_same_way():
    for cls, name, bad in [
        (AlphaZeroConfig, "simulations", 0),
        (PGConfig, "gamma", 2),
        (NetConfig, "blocks", -1),
        (TransferSettings, "simulations", 401),
    ]:
        with pytest.raises(ValueError) as direct:
            make(cls, **{name: bad})
        text = json.dumps({**make(cls).to_dict(), name: bad})
        with pytest.raises(CheckpointError) as read:
            check(text, Config(cls), "f.pt", "config")
        assert str(read.value) == f"f.pt: config is not a valid {cls.__name__}: {direct.value}"


def test_file_limits_come_from_the_fields():
    assert NetConfig.file_limits == {
        "blocks": 256,
        "channels": 2048,
        "expansion": 16,
        "in_planes": 512,
        "extra_actions": 16,
        "policy_hidden": 2048,
        "value_hidden": 4096,
        "kernel_size": 25,
        "actions_per_cell": 64,
    }
    assert CompositeConfig.file_limits["big_size"] == 64 and AlphaZeroConfig.file_limits == {}


def test_rules_between_fields_run_after_the_fields():
    with pytest.raises(ValueError, match=r"min_buffer \(64\) must be at least batch_size \(128\)"):
        AlphaZeroConfig(min_buffer=64)
    with pytest.raises(ValueError, match=r"small_size \(9\) must be below big_size \(9\)"):
        TransferSettings(source="x.pt", big_size=9, small_size=9)
    assert TransferSettings(source="x.pt", big_size=9, steps=10, eval_games=3).eval_every_steps == 2
    assert TransferSettings(source="x.pt", big_size=9, eval_games=3).final_games == 3
    assert PGConfig(lr=0.25).lr_final == 0.25


def test_a_setting_needs_a_check_and_a_nested_config_has_no_option():
    with pytest.raises(TypeError, match="needs a Check"):
        setting(3)

    @dataclasses.dataclass
    class Outer(JsonConfig):
        inner: NetConfig = setting(check=Nested(NetConfig))

    with pytest.raises(TypeError, match="inner: a field checked by Nested has no command-line form"):
        Outer.add_options(argparse.ArgumentParser())

    @dataclasses.dataclass
    class Plain(JsonConfig):
        size: int = 3

    with pytest.raises(TypeError, match=r"Plain.size is not declared with setting\(\)"):
        Plain()


# ---- the command line of `zerogym transfer run` ------------------------------------------------------
# the options it had before they were made from the fields: none may go
RUN_OPTIONS = {
    "--source",
    "--big-size",
    "--small-size",
    "--methods",
    "--minutes",
    "--steps",
    "--eval-every-minutes",
    "--eval-every-steps",
    "--eval-games",
    "--final-games",
    "--zero-shot-games",
    "--references",
    "--reference-games",
    "--simulations",
    "--opening-moves",
    "--config",
    "--set",
    "--grow-blocks",
    "--composite",
    "--curriculum",
    "--curriculum-split",
    "--seed",
    "--out",
    "--report",
    "--parallel",
    "--save-best",
    "--no-progress",
    "--resume",
    "--force",
}
NOT_SETTINGS = {"--set", "--out", "--report", "--parallel", "--save-best", "--no-progress", "--resume", "--force"}


def run_parser():
    ap = argparse.ArgumentParser(prog="zerogym")
    add_run_parser(ap.add_subparsers(dest="command"))
    return ap


def run_options():
    sub = next(a for a in run_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    return {a.option_strings[-1]: a for a in sub._actions if a.option_strings and a.dest != "help"}


def test_transfer_run_options_are_the_settings_fields():
    options = run_options()
    assert set(options) == RUN_OPTIONS
    fields = {"--" + f.name.replace("_", "-"): f for f in dataclasses.fields(TransferSettings)}
    assert set(options) - NOT_SETTINGS == set(fields)
    for flag, f in fields.items():
        action = options[flag]
        assert action.dest == f.name and action.required == (
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )
        assert f.metadata["doc"] and action.help.startswith(f.metadata["doc"]), flag
    assert "an integer in [1, 400], default 200" in options["--simulations"].help
    assert options["--methods"].choices == ("scratch", "finetune", "composite", "grown", "curriculum")
    assert (options["--eval-games"].type, options["--minutes"].type) == (int, float)


def parse(*words):
    return run_parser().parse_args(["run", *map(str, words)])


def test_parsed_defaults_are_the_settings_defaults():
    args = parse("--source", "x.pt", "--big-size", 9)
    assert settings_from_args(args) == TransferSettings(source="x.pt", big_size=9)
    with pytest.raises(SystemExit):
        parse("--source", "x.pt", "--big-size", 9, "--steps", 5, "--minutes", 3)
    with pytest.raises(SystemExit):
        parse("--source", "x.pt")  # --big-size is required


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {
            "steps": 40,
            "small_size": 5,
            "methods": ("finetune", "grown"),
            "references": ("random", "uct:20"),
            "config": {"simulations": 8, "game_kwargs": {"komi": 6.5}},
            "composite": {"downscalings": 2, "features": 8},
            "curriculum": (7,),
            "curriculum_split": (0.25, 0.75),
            "final_games": 4,
            "seed": 3,
        },
        {"minutes": 2.5, "eval_every_minutes": 0.1, "opening_moves": 0, "simulations": 400},
    ],
)
def test_the_command_line_of_settings_reads_back_to_them(fields, tmp_path):
    settings = TransferSettings(source="pretrained:go_5x5", big_size=9, **fields)
    line = command_line(settings, str(tmp_path / "out"), None)
    words = shlex.split(line)
    assert words[:3] == ["zerogym", "transfer", "run"]
    args = parse(*words[3:])
    assert settings_from_args(args) == settings and args.out == str(tmp_path / "out")
    assert ("--minutes" in words) != settings.step_mode


def test_set_adds_to_config_and_config_takes_a_file(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps({"simulations": 8, "lr": 0.5}))
    args = parse(
        "--source",
        "x.pt",
        "--big-size",
        9,
        "--config",
        tmp_path / "c.json",
        "--set",
        "lr=0.1",
        "--composite",
        "features=8",
    )
    s = settings_from_args(args)
    assert s.config == {"simulations": 8, "lr": 0.1} and s.composite == {"features": 8}
    (tmp_path / "list.json").write_text("[1]")
    with pytest.raises(ValueError, match=r"--config .*list\.json: expected a JSON object of AlphaZeroConfig fields"):
        settings_from_args(parse("--source", "x.pt", "--big-size", 9, "--config", tmp_path / "list.json"))


def test_train_commands_layer_defaults_file_set_and_options(tmp_path):
    from zerogym_agents.cli.train import add_train_parser, alphazero_config as build_config

    ap = argparse.ArgumentParser()
    add_train_parser(ap.add_subparsers(dest="command"))
    (tmp_path / "c.json").write_text(json.dumps({"simulations": 7, "lr": 0.5, "game": "hex"}))
    args = ap.parse_args(
        [
            "train",
            "alphazero",
            "--game",
            "go",
            "--kwargs",
            "board_size=5",
            "--config",
            str(tmp_path / "c.json"),
            "--set",
            "lr=0.1",
        ]
    )
    cfg = build_config(args)
    assert (cfg.game, cfg.game_kwargs, cfg.simulations, cfg.lr, cfg.init_from) == (
        "go",
        {"board_size": 5},
        7,
        0.1,
        None,
    )
    args = ap.parse_args(["train", "pg", "--game", "tictactoe", "--set", "algo=ppo", "--init-from", "a.pt"])
    from zerogym_agents.cli.train import pg_config

    assert (pg_config(args).algo, pg_config(args).init_from) == ("ppo", "a.pt")


# ---- the config tables of docs/agents show the declared bounds -------------------------------------------
DOCS = Path(__file__).resolve().parents[3] / "docs" / "agents"
TABLES = {
    "alphazero.md": (NetConfig, AlphaZeroConfig),
    "policy_gradient.md": (PGConfig,),
    "transfer.md": (TransferSettings,),
}


def allowed_in_docs(f):
    c = f.metadata["check"]
    return "a game of `zerogym.registry.GAMES`" if isinstance(c, OneOf) and isinstance(c.options, dict) else c.what


@pytest.mark.parametrize("page", TABLES)
def test_docs_tables_show_the_declared_bounds(page):
    text = (DOCS / page).read_text()
    for cls in TABLES[page]:
        marker = re.search(rf"<!-- doc-table: fields \S+\.{cls.__name__} complete -->\n\n(\|.*\n)+", text)
        header, _, *rows = [
            [c.strip() for c in line.strip().strip("|").split("|")] for line in marker.group(0).splitlines()[2:]
        ]
        column = header.index("allowed")
        shown = {row[0].strip("`"): row[column] for row in rows}
        assert shown == {f.name: allowed_in_docs(f) for f in dataclasses.fields(cls)}, cls.__name__


def test_fields_help_shows_each_default_as_set_takes_it_and_wraps_the_doc():
    @dataclasses.dataclass
    class Run(JsonConfig):
        name: str = setting(check=Text(), doc="what it is called")
        steps: int = setting(10, Integer(1), "steps of the run")
        rate: float | None = setting(None, Maybe(Number(0)), "learning rate (None: the default one) " * 4)
        net: dict = setting(factory=lambda: {"blocks": 2}, check=Dict("a dict of NetConfig fields"), doc="the net")

    lines = Run.fields_help(width=60).splitlines()
    assert lines[:4] == [
        "  name = (required)  (a string)",
        "      what it is called",
        "  steps = 10  (an integer >= 1)",
        "      steps of the run",
    ]
    assert lines[4] == "  rate = null  (None or a number >= 0)" and all(len(line) <= 60 for line in lines)
    assert '  net = {"blocks": 2}  (a dict of NetConfig fields)' in lines


def test_an_unknown_field_gets_a_suggestion_or_else_the_list_of_fields():
    suggestion = r"^unknown AlphaZeroConfig field 'simulatons' \(did you mean simulations\?\)$"
    with pytest.raises(ValueError, match=suggestion):
        AlphaZeroConfig.from_layers(None, ["simulatons=3"])
    with pytest.raises(ValueError, match=r"unknown AlphaZeroConfig fields \['zzz'\]; known: batch_size, "):
        AlphaZeroConfig.from_dict({"zzz": 1})
    with pytest.raises(ValueError, match=r"^--set takes key=value words \(or one JSON object\), got 'lr': write lr="):
        AlphaZeroConfig.from_layers(None, ["lr"])
