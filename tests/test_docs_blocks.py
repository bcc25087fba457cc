"""Every code block of README.md and of the pages under docs/ works as written, for a reader who
follows a page from the top, block by block and command by command.

```python blocks
    Each runs with exec in a fresh namespace, in a temporary working folder, under the CPU-time and
    wall-clock limits of test_docs_agents.run_block, so every example must be quick as written.
    Convention: a block whose first line is the comment `# continues the block above` depends on the
    python block before it on the same page, and runs after it in the same namespace and folder
    (each test reruns the chain from its first block, so it passes or fails on its own). A first
    line `# doc: needs gnugo` or `# doc: needs display` (after the continuation comment, if any)
    skips the block, with that reason, where GNU Go or a pygame display is missing. Nothing else is
    skipped (test_docs_agents' `# doc: skip` is not honoured here).

```json blocks
    Must parse, and load as one of the config classes (AlphaZeroConfig, PGConfig, TransferSettings,
    NetConfig) through their own from_dict.

Commands
    The indented (4-space) blocks whose lines start with a known program, fenced bash/sh/shell
    blocks, and inline `python ...`, `pip install ...`, `tensorboard ...` and `bash ...` spans. A line
    is split like a shell line (pipes, &&, ;, redirects, NAME=value prefixes, `\\` continuations;
    `<placeholder>` words stand for one word). For each simple command:
    - `zerogym ...` (also `.venv/bin/zerogym`): parsed by the real parser, that of the function the
      console script of pyproject.toml names (its parse_args is intercepted, so nothing runs), then
      checked as the command checks it before starting: the game and --kwargs make a state; agent
      specs build (pretrained:NAME must be shipped); train commands build their config
      (build_config, with --config read from the file an earlier command wrote); transfer run builds
      its TransferSettings. Every file it reads (a saved
      agent, --config, --in, --init-from, --source, the checkpoint of --resume) is shipped
      (pretrained:NAME), tracked in the repository, or written by an earlier command of the same page;
      a training command on a folder an earlier command trained in needs --resume or --force, as the
      run-folder rule says. `zerogym play --list` and `printf ... | zerogym gtp` with a built-in agent
      really run, in a subprocess.
    - `python X.py ...`: X.py exists and its --help names every --option used; `python -m M`: M
      imports (for zerogym modules, its --help names the options); `pytest PATH`: PATH exists.
    - `pip install`: every extra named (".[test]", "zerogym[display]") is in pyproject.toml.
    - `bash X.sh`, `scripts/X.sh`: the script exists; scripts/sanitize.sh's own options are known and
      the command it runs is checked in turn.
    - `tensorboard --logdir D`: D is written by an earlier command.
    - `gogui-twogtp`: the -black and -white programs are checked in turn; `gnugo` playing a zerogym
      engine must get the flags GnuGoAgent passes (--chinese-rules --positional-superko
      --capture-all-dead), since zerogym scores Tromp-Taylor, where every stone on the board is alive.
    - `mkdocs serve|build`: every option is one mkdocs's own command line takes, and mkdocs.yml is tracked.
    - `printf`, `echo` (a JSON file written by echo must parse), `cd`.
    Any other program is reported, so that a new kind of command gets a check.

Every test id names the page and the line of the block or command. test_checkers_catch_errors feeds
the checkers a broken page, so none of them can pass vacuously.
"""

import argparse
import contextlib
import functools
import importlib.util
import io
import json
import os
import posixpath
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from unittest import mock

import pytest

from test_docs_agents import run_block

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")))
CONTINUES = "# continues the block above"
NEEDS_GNUGO, NEEDS_DISPLAY = "# doc: needs gnugo", "# doc: needs display"
SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
PROGRAMS = (
    "zerogym",
    "python",
    "pytest",
    "pip",
    "bash",
    "tensorboard",
    "gogui-twogtp",
    "gnugo",
    "printf",
    "echo",
    "cd",
    "ray",
    "mkdocs",
)
INLINE_PROGRAMS = ("python", "pip", "tensorboard", "bash")
GNUGO_FLAGS = ("--chinese-rules", "--positional-superko", "--capture-all-dead")  # as GnuGoAgent starts it
RUN_TIMEOUT = 120


# ---- reading the pages ----------------------------------------------------------------------------
def fenced_blocks(text):
    """[(line, language, code)]: the ``` blocks of a markdown text; line: the first code line (1-based)."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.fullmatch(r" {0,3}```\s*([\w+-]*).*", lines[i])
        if m:
            start, body = i + 2, []
            i += 1
            while i < len(lines) and not re.fullmatch(r" {0,3}```\s*", lines[i]):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise ValueError(f"line {start - 1}: a ``` block is never closed")
            blocks.append((start, m.group(1).lower(), "\n".join(body) + "\n"))
        i += 1
    return blocks


def without_fences(text):
    """The lines of the text with fenced blocks blanked (line numbers kept)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if re.match(r" {0,3}```", line):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return out


def indented_blocks(text):
    """[(line, code)]: the indented code blocks (4 spaces, after a blank line) outside fences, dedented."""
    lines, blocks, i = without_fences(text), [], 0
    while i < len(lines):
        if lines[i].startswith("    ") and lines[i].strip() and (i == 0 or not lines[i - 1].strip()):
            start, body = i + 1, []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            blocks.append((start, "\n".join(body).rstrip("\n") + "\n"))
        else:
            i += 1
    return blocks


def inline_commands(text):
    """[(line, command)]: inline code spans outside fences that are a command of INLINE_PROGRAMS."""
    found = []
    for n, line in enumerate(without_fences(text), 1):
        for span in re.findall(r"`([^`]+)`", line):
            words = span.split()
            if len(words) >= 2 and words[0] in INLINE_PROGRAMS:
                found.append((n, span))
    return found


def command_lines(code, first_line):
    """[(line, text)]: the lines of a command block, `\\` continuations joined, comments and blanks dropped."""
    out, pending, start = [], "", None
    for n, line in enumerate(code.split("\n"), first_line):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            start = n
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append((start, pending + line.strip()))
        pending = ""
    if pending:
        out.append((start, pending.strip()))
    return out


def program(word):
    """The program a command word names: `zerogym` for .venv/bin/zerogym, `python` for python3.11."""
    if word.startswith("scripts/") or word.endswith(".sh"):
        return word
    base = posixpath.basename(word)
    return "python" if re.fullmatch(r"python3?(\.\d+)?", base) else base


def is_command_block(code):
    """Whether an indented block is shell commands (its first word, after NAME=value words, is a program)."""
    lines = command_lines(code, 1)
    if not lines:
        return False
    words = [w for w in lines[0][1].split() if not re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", w)]
    return bool(words) and (program(words[0]) in PROGRAMS or words[0].startswith("scripts/"))


def split_line(text):
    """[(words, redirects, piped)]: the simple commands of a shell line, split at |, &&, || and ;.
    redirects: [(operator, target)]; piped: whether the command reads the output of the one before.
    A trailing `# comment` is dropped and a `<placeholder>` is one word."""
    text = re.sub(r"(^|\s)#\s.*$", "", text)
    text = re.sub(r"<([\w.-]+)>", r"PLACEHOLDER-\1", text)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split, lexer.commenters = True, ""
    commands, words, redirects, piped, tokens = [], [], [], False, list(lexer)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in ("|", "&&", "||", ";"):
            commands.append((words, redirects, piped))
            words, redirects, piped = [], [], tok == "|"
        elif tok in (">", ">>", "<"):
            redirects.append((tok, tokens[i + 1] if i + 1 < len(tokens) else ""))
            i += 1
        else:
            words.append(tok)
        i += 1
    commands.append((words, redirects, piped))
    return [c for c in commands if c[0]]


# ---- what the reader has made so far --------------------------------------------------------------
@functools.cache
def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return frozenset(out.split("\n"))


def norm(path):
    return posixpath.normpath(path.rstrip("/"))


class PageState:
    """The files a reader who ran a page's commands so far has: path -> text (or None), and the
    folders that hold a training run."""

    def __init__(self):
        self.files = {}
        self.runs = set()

    def write(self, path, text=None):
        self.files[norm(path)] = text

    def has(self, path):
        return norm(path) in self.files or norm(path) in tracked_files()


def file_problems(path, state, what="reads"):
    if state.has(path):
        return []
    return [f"{what} {path}, which no earlier command of the page writes (nor is it shipped or in the repository)"]


# ---- zerogym commands -----------------------------------------------------------------------------
def zerogym_main():
    """The function of the `zerogym` console script, as pyproject.toml names it."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        target = tomllib.load(f)["project"]["scripts"]["zerogym"]
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


class _Parsed(Exception):
    def __init__(self, namespace):
        super().__init__("parsed")
        self.namespace = namespace


def parse_zerogym(argv):
    """The argparse Namespace the real parser of `zerogym` (the console script's main) makes of argv, without
    running the command. ("help", text) for --help; ("error", message) when the parser refuses argv."""
    main = zerogym_main()
    real = argparse.ArgumentParser.parse_args

    def capture(parser, args=None, namespace=None):
        raise _Parsed(real(parser, args, namespace))

    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.object(argparse.ArgumentParser, "parse_args", capture),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            main(list(argv))
        except _Parsed as parsed:
            return parsed.namespace
        except SystemExit as exit_:
            if exit_.code == 0:
                return ("help", out.getvalue())
            return ("error", (err.getvalue().strip().split("\n") or [""])[-1])
    raise AssertionError(f"zerogym {' '.join(argv)} returned without parsing its arguments")


def game_problems(game, kwargs_words):
    from zerogym.registry import make_state
    from zerogym_agents.agents.specs import parse_kwargs

    try:
        kwargs = parse_kwargs(kwargs_words)
        make_state(game, **kwargs)
    except (ValueError, TypeError) as err:
        return None, [f"game {game} {' '.join(kwargs_words)}: {err}"]
    return kwargs, []


def spec_problems(spec, state, game=None, kwargs=None):
    """Problems of an agent spec: a shipped name, a file the page has, or a built-in spec that builds."""
    from zerogym_agents.agents.specs import agent_from_spec, game_kwargs_for_agents
    from zerogym_agents.agents.saved import pretrained_names

    if spec.startswith("pretrained:"):
        if spec.split(":", 1)[1] not in pretrained_names():
            return [f"{spec} is not shipped (shipped: {', '.join(pretrained_names())})"]
        if game is not None:
            try:
                game_kwargs_for_agents(game, kwargs or {}, [spec])
            except (ValueError, TypeError) as err:
                return [f"{spec}: {err}"]
        return []
    if spec.endswith(".pt") or "/" in spec:
        return file_problems(spec, state)
    if spec.split(":")[0] == "gnugo":
        if not re.fullmatch(r"gnugo(:([0-9]|1[0-9]|20))?", spec):
            return [f"agent spec {spec!r}: gnugo takes a level 0 to 20"]
        if game is not None and game != "go":
            return [f"agent spec {spec!r}: GNU Go plays Go only, not {game}"]
        return []
    try:
        agent = agent_from_spec(spec, game, kwargs)
    except (ValueError, TypeError) as err:
        return [str(err)]
    if hasattr(agent, "close"):
        agent.close()
    return []


def source_problems(spec, state):
    """A file argument that may also be pretrained:NAME (--in, --init-from, --source)."""
    if spec.startswith("pretrained:"):
        return spec_problems(spec, state)
    return file_problems(spec, state)


@contextlib.contextmanager
def files_of(state):
    """A temporary working folder holding the page's files whose text is known (e.g. a config)."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        for path, content in state.files.items():
            if content is not None and not posixpath.isabs(path):
                os.makedirs(posixpath.dirname(path) or ".", exist_ok=True)
                with open(path, "w") as f:
                    f.write(content)
        yield


def run_folder_problems(out, args, state):
    """The run-folder rule: --resume needs a run, a folder that holds one needs --resume or --force."""
    out = norm(out)
    if args.resume and out not in state.runs:
        return [f"--resume on {out}, where no earlier command of the page started a run"]
    if not args.resume and not args.force and out in state.runs:
        return [
            f"{out} already holds a run from an earlier command: the command would stop "
            "(add --resume to continue it or --force to start over, or use another --out)"
        ]
    return []


def record_run(out, state, files):
    out = norm(out)
    state.runs.add(out)
    for name in files:
        state.write(posixpath.join(out, name))


RUN_FILES = ("agent.pt", "agent.json", "checkpoint.pt", "config.json", "training.png", "tb")


def train_problems(args, state):
    from zerogym_agents.cli.train import alphazero_config as az_config
    from zerogym_agents.cli.train import pg_config

    problems = []
    if args.config:
        problems += file_problems(args.config, state)
    if args.init_from:
        problems += source_problems(args.init_from, state)
    if problems:
        return problems
    try:
        with files_of(state):
            cfg = (az_config if args.algo == "alphazero" else pg_config)(args)
    except (ValueError, TypeError, OSError) as err:
        return [f"its config does not build: {err}"]
    if getattr(args, "max_seconds", None) is not None and not args.max_seconds > 0:
        problems.append(f"--max-seconds must be > 0, got {args.max_seconds}")
    default = f"alphazero-{cfg.game}" if args.algo == "alphazero" else f"pg-{cfg.algo}-{cfg.game}"
    out = args.out or posixpath.join("runs", default)
    problems += run_folder_problems(out, args, state)
    record_run(out, state, RUN_FILES)
    return problems


def transfer_problems(args, state):
    if args.transfer_command in ("grow", "composite"):
        problems = source_problems(args.src, state)
        if (
            args.transfer_command == "grow"
            and args.blocks is None
            and args.channels is None
            and args.kernel_size is None
        ):
            problems.append("grow needs at least one of --blocks, --channels, --kernel-size")
        state.write(args.out)
        state.write(re.sub(r"\.pt$", "", args.out) + ".json")
        return problems
    from zerogym_agents.cli.transfer_run import settings_from_args

    problems = source_problems(args.source, state)
    problems += [p for spec in args.references for p in spec_problems(spec, state, "go")]
    if args.config and not args.config.lstrip().startswith("{"):
        problems += file_problems(args.config, state)
    if problems:
        return problems
    try:
        with files_of(state):
            settings = settings_from_args(args)
    except (ValueError, TypeError, OSError) as err:
        return [f"its settings do not build: {err}"]
    name = os.path.splitext(os.path.basename(args.source.split(":")[-1]))[0]
    out = args.out or posixpath.join("runs", f"transfer-{name}-{args.big_size}x{args.big_size}")
    problems += run_folder_problems(out, args, state)
    record_run(
        out,
        state,
        [
            "experiment.json",
            "results.json",
            "report.md",
            "report.png",
            *(f"{m}/final_agent.pt" for m in settings.methods),
        ],
    )
    return problems


def zerogym_problems(argv, state, piped=False):
    """(problems, run): problems of one `zerogym` command; run: whether it is cheap enough to run."""
    args = parse_zerogym(argv)
    if isinstance(args, tuple):
        kind, text = args
        return ([] if kind == "help" else [f"the zerogym parser refuses it: {text}"]), False
    cmd, problems, run = args.command, [], False
    if cmd == "train":
        problems += game_problems(args.game, args.kwargs)[1] or train_problems(args, state)
    elif cmd == "transfer":
        problems += transfer_problems(args, state)
    elif cmd == "arena":
        from zerogym_agents.agents.specs import agent_names

        kwargs, problems = game_problems(args.game, args.kwargs)
        if len(args.agents) < 2:
            problems.append("--agents needs at least two agent specs")
        if args.anchor is not None and args.anchor not in agent_names(args.agents):
            problems.append(f"--anchor {args.anchor} is not one of the agents")
        if kwargs is not None:
            problems += [p for spec in args.agents for p in spec_problems(spec, state, args.game, kwargs)]
        for name in ("report.md", "elo.png", "results.json", "games.jsonl"):
            state.write(posixpath.join(args.out, name))
    elif cmd == "play":
        if args.list:
            return problems, True
        if args.game is None:
            return ["zerogym play needs a game (or --list)"], False
        kwargs, problems = game_problems(args.game, args.kwargs)
        if kwargs is not None and args.agent is not None:
            problems += spec_problems(args.agent, state, args.game, kwargs)
        for path in (args.gif, args.svg):
            if path:
                state.write(path)
    elif cmd == "gtp":
        problems += spec_problems(args.agent, state, "go", {"board_size": args.board_size, "komi": args.komi})
        run = piped and not problems and not args.agent.startswith("gnugo") and not state.has(args.agent)
    elif cmd == "demo":
        state.write(args.out)
    return problems, run


# ---- other programs -------------------------------------------------------------------------------
@functools.cache
def help_text(*argv):
    """What `python ARGV --help` prints (run from the repository root)."""
    done = subprocess.run(
        [sys.executable, *argv, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    return done.stdout + done.stderr if done.returncode == 0 else None


def options_problems(words, argv):
    text = help_text(*argv)
    if text is None:
        return [f"python {' '.join(argv)} --help fails"]
    return [
        f"python {' '.join(argv)} has no option {w.split('=')[0]}"
        for w in words
        if w.startswith("--") and not re.search(re.escape(w.split("=")[0]) + r"\b", text)
    ]


def python_problems(words):
    rest = words[1:]
    if rest[:1] == ["-m"] and len(rest) >= 2:
        module = rest[1]
        if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
            return [f"no module {module}"]
        if module == "pytest":
            return pytest_problems(rest[2:])
        return options_problems(rest[2:], ("-m", module)) if module.startswith("zerogym") else []
    if rest and rest[0].endswith(".py"):
        if not (ROOT / rest[0]).is_file():
            return [f"{rest[0]} does not exist"]
        if rest[1:2] and not rest[1].startswith("-"):  # a mode (sub-command) first: its own options
            return options_problems(rest[2:], tuple(rest[:2]))
        return options_problems(rest[1:], (rest[0],))
    return []


def pytest_problems(args):
    """pytest's test paths (words with a / or ending in .py) exist in the repository."""
    paths = [w.split("::")[0] for w in args if not w.startswith("-") and ("/" in w or w.endswith(".py"))]
    return [f"pytest: {p} does not exist" for p in paths if not (ROOT / p).exists()]


@functools.cache
def extras():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return frozenset(tomllib.load(f)["project"]["optional-dependencies"])


def pip_problems(words):
    problems = []
    for word in words[2:] if words[1:2] == ["install"] else []:
        m = re.fullmatch(r"(?:\.|zerogym)\[([\w,-]+)\]", word)
        if m:
            problems += [f"pyproject.toml has no extra {e!r}" for e in m.group(1).split(",") if e not in extras()]
    return problems


def sanitize_problems(words, state):
    """scripts/sanitize.sh [--thread] [--self-test] [--dir DIR] [--no-install] [--] [COMMAND ...]: the command
    is checked too."""
    rest = words[1:]
    while rest and rest[0] in ("--dir", "--no-install", "--thread", "--self-test", "--"):
        if rest[0] == "--":
            rest = rest[1:]
            break
        rest = rest[2:] if rest[0] == "--dir" else rest[1:]
    if rest and rest[0].startswith("-"):
        return [f"scripts/sanitize.sh has no option {rest[0]}"]
    return simple_problems(rest, state)[0] if rest else []


def gogui_problems(words, state):
    problems = []
    for flag in ("-black", "-white"):
        if flag not in words or words.index(flag) + 1 >= len(words):
            problems.append(f"gogui-twogtp needs {flag} PROGRAM")
            continue
        engine = shlex.split(words[words.index(flag) + 1])
        found, _ = simple_problems(engine, state)
        problems += [f"{flag}: {p}" for p in found]
    return problems


def gnugo_problems(words):
    missing = [flag for flag in ("--mode", *GNUGO_FLAGS) if flag not in words]
    if missing:
        return [
            f"gnugo without {' '.join(missing)}: against zerogym it needs --mode gtp and the flags GnuGoAgent "
            f"passes ({' '.join(GNUGO_FLAGS)}), else the two sides score differently"
        ]
    return []


def mkdocs_problems(args, state):
    """`mkdocs serve|build ...`: the sub-command and options of mkdocs's own (click) command line."""
    try:
        from mkdocs.__main__ import cli
    except ImportError:
        return ["mkdocs is not installed (the docs extra: pip install -e '.[docs]')"]
    if not args or args[0] not in ("serve", "build"):
        return [f"mkdocs {' '.join(args[:1])}: only mkdocs serve and build are known here"]
    options = {o for param in cli.commands[args[0]].params for o in (*param.opts, *param.secondary_opts)}
    unknown = [w for w in args[1:] if w.startswith("-") and w.split("=")[0] not in options]
    return [f"mkdocs {args[0]} has no option {w}" for w in unknown] + file_problems("mkdocs.yml", state)


def simple_problems(words, state, redirects=(), piped=False):
    """(problems, run) of one simple command (words after any NAME=value prefix)."""
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        words = words[1:]
    if not words:
        return [], False
    name, problems, run = program(words[0]), [], False
    if name == "zerogym":
        problems, run = zerogym_problems(words[1:], state, piped)
    elif name == "python":
        problems = python_problems(words)
    elif name == "pip":
        problems = pip_problems(words)
    elif name == "pytest":
        problems = pytest_problems(words[1:])
    elif name == "bash" or name.startswith("scripts/"):
        script = words[0] if name != "bash" else words[1] if len(words) > 1 else "(no script)"
        if not (ROOT / script).is_file():
            problems = [f"{script} does not exist"]
        elif script == "scripts/sanitize.sh" and name != "bash":
            problems = sanitize_problems(words, state)
    elif name == "tensorboard":
        if "--logdir" not in words or words.index("--logdir") + 1 >= len(words):
            problems = ["tensorboard needs --logdir DIR"]
        else:
            problems = file_problems(words[words.index("--logdir") + 1], state)
    elif name == "gogui-twogtp":
        problems = gogui_problems(words, state)
    elif name == "gnugo":
        problems = gnugo_problems(words)
    elif name in ("printf", "echo", "cd"):
        pass
    elif name == "mkdocs":
        problems = mkdocs_problems(words[1:], state)
    elif name == "ray":
        if words[1:2] not in (["start"], ["stop"], ["status"]):
            problems = [f"ray {' '.join(words[1:2])}: only ray start, stop and status are known here"]
    else:
        problems = [f"{words[0]}: a program this test does not know how to check"]
    for op, target in redirects:
        if op == "<":
            problems += file_problems(target, state)
        elif name == "echo":
            text = " ".join(words[1:]) + "\n"
            if target.endswith(".json"):
                try:
                    json.loads(text)
                except ValueError as err:
                    problems.append(f"{target} is not JSON: {err}")
            state.write(target, text)
        else:
            state.write(target)
    return problems, run


def line_problems(text, state):
    """(problems, run) of one command line: run when every command in it is cheap to really run."""
    problems, runs = [], []
    try:
        commands = split_line(text)
    except ValueError as err:
        return [f"not a shell line: {err}"], False
    for words, redirects, piped in commands:
        found, run = simple_problems(words, state, redirects, piped)
        problems += found
        if program(words[0]) not in ("printf", "echo"):
            runs.append(run)
    return problems, bool(runs) and all(runs)


# ---- a page, in order -----------------------------------------------------------------------------
def commands_of(text):
    """[(line, command)] of a page in reading order: command blocks, shell fences and inline commands."""
    found = [
        (line, t)
        for start, code in indented_blocks(text)
        if is_command_block(code)
        for line, t in command_lines(code, start)
    ]
    found += [
        (line, t)
        for start, lang, code in fenced_blocks(text)
        if lang in SHELL_LANGUAGES
        for line, t in command_lines(code, start)
    ]
    found += inline_commands(text)
    return sorted(found)


def walk(text):
    """[(line, command, problems, run)]: every command of a page checked against what the ones
    before it wrote."""
    state, steps = PageState(), []
    for line, command in commands_of(text):
        problems, run = line_problems(command, state)
        steps.append((line, command, problems, run))
    return steps


@functools.cache
def page_text(page):
    return (ROOT / page).read_text()


@functools.cache
def page_walk(page):
    return walk(page_text(page))


def python_chain(blocks, index):
    """The python blocks that block `index` runs after it, itself last: [(line, code)]."""
    chain = [blocks[index]]
    while chain[0][1].lstrip().startswith(CONTINUES):
        i = blocks.index(chain[0])
        if i == 0:
            raise ValueError(f"line {chain[0][0]}: `{CONTINUES}`, but no python block comes before it")
        chain.insert(0, blocks[i - 1])
    return chain


def chain_code(chain):
    """One program of the chain's blocks, each at its own line, so tracebacks give the page's lines."""
    code, at = "", 1
    for line, block in chain:
        code += "\n" * (line - at) + block
        at = line + block.count("\n")
    return code


def markers(code):
    lines = code.lstrip().split("\n")
    return {lines[0].strip(), *(lines[1:2] if lines[0].strip() == CONTINUES else [])} & {
        CONTINUES,
        NEEDS_GNUGO,
        NEEDS_DISPLAY,
    }


def missing_need(chain):
    """Why the chain cannot run here (GNU Go or a display is missing), or None."""
    needs = set().union(*(markers(code) for _, code in chain))
    if NEEDS_GNUGO in needs:
        from zerogym_agents.agents.gnugo import GnuGoNotFoundError, find_gnugo

        try:
            find_gnugo()
        except GnuGoNotFoundError:
            return "GNU Go is not installed"
    if NEEDS_DISPLAY in needs:
        if importlib.util.find_spec("pygame") is None:
            return "pygame is not installed"
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            return "no display"
    return None


def python_blocks(text):
    return [(line, code) for line, lang, code in fenced_blocks(text) if lang in ("python", "py")]


def config_problems(text):
    """A ```json block: JSON that one of the config classes loads."""
    from zerogym_agents.alphazero.config import AlphaZeroConfig
    from zerogym_agents.nets import NetConfig
    from zerogym_agents.pg.config import PGConfig
    from zerogym_agents.transfer.settings import TransferSettings

    try:
        data = json.loads(text)
    except ValueError as err:
        return [f"not JSON: {err}"]
    errors = []
    for cls in (AlphaZeroConfig, PGConfig, TransferSettings, NetConfig):
        try:
            cls.from_dict(data)
            return []
        except (ValueError, TypeError) as err:
            errors.append(f"{cls.__name__}: {err}")
    return ["no config class loads it: " + "; ".join(errors)]


def fenced_problems(text):
    """Problems of the fenced blocks other than python and shell: a ```json block that no config
    class loads, a block in a language this module does not check."""
    problems = []
    for line, lang, code in fenced_blocks(text):
        if lang == "json":
            problems += [f"{line}: {p}" for p in config_problems(code)]
        elif lang not in ("python", "py", "text", "output", *SHELL_LANGUAGES):
            problems.append(f"{line}: a ```{lang} block: this test knows python, json, shell and text")
    return problems


# ---- the tests ------------------------------------------------------------------------------------
def _params(kind):
    out = []
    for page in PAGES:
        text = page_text(page)
        if kind == "python":
            out += [pytest.param(page, i, id=f"{page}:{line}") for i, (line, _) in enumerate(python_blocks(text))]
        else:
            out += [pytest.param(page, i, id=f"{page}:{line}") for i, (line, _) in enumerate(commands_of(text))]
    return out


def test_pages_have_blocks():
    assert "README.md" in PAGES and "docs/agents/alphazero.md" in PAGES and "docs/games/go.md" in PAGES
    assert len(python_blocks(page_text("README.md"))) >= 5, "the README's python examples were not found"
    assert len(commands_of(page_text("README.md"))) >= 15, "the README's commands were not found"
    assert len(_params("python")) >= 40 and len(_params("commands")) >= 60


@pytest.mark.parametrize("page,index", _params("python"))
def test_python_block(page, index, tmp_path, monkeypatch):
    blocks = python_blocks(page_text(page))
    chain = python_chain(blocks, index)
    reason = missing_need(chain)
    if reason:
        pytest.skip(reason)
    monkeypatch.chdir(tmp_path)  # examples write their files here, not into the checkout
    run_block(chain_code(chain), page)


def test_other_fenced_blocks():
    """```json blocks load as a config; no block is in a language this module does not check."""
    assert [f"{page}:{p}" for page in PAGES for p in fenced_problems(page_text(page))] == []


@pytest.mark.parametrize("page,index", _params("commands"))
def test_command(page, index, tmp_path):
    line, command, problems, run = page_walk(page)[index]
    assert problems == [], f"{page}:{line}: {command}"
    if run:
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {command}"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        assert done.returncode == 0, f"{page}:{line}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert not re.search(r"^\?", done.stdout, re.M), f"a GTP error answer:\n{done.stdout}"


def readme_block(containing):
    (block,) = [code for _, code in python_blocks(page_text("README.md")) if containing in code]
    return block


def test_readme_landing_example_prints_a_result(capsys):
    """The README's first block (a shipped AlphaZero agent against UCT(1000)) is short and says who won."""
    line, block = python_blocks(page_text("README.md"))[0]
    assert 'load_agent("pretrained:connect_four")' in block and len(block.strip().splitlines()) <= 12
    run_block(chain_code([(line, block)]), "README.md")
    out = capsys.readouterr().out
    assert "game over" in out and re.search(r"^(AlphaZero wins|UCT\(1000\) wins|draw)$", out, re.M)


def test_readme_maskable_ppo_plays_legal_moves(tmp_path, monkeypatch):
    """The model of the README's Stable-Baselines3 block, given the env's masks, picks legal moves only."""
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(readme_block("MaskablePPO"), "README.md", "exec"), namespace)
    gym_env, model = namespace["gym_env"], namespace["model"]
    obs, _ = gym_env.reset(seed=1)
    for _ in range(10):
        action, _ = model.predict(obs, action_masks=gym_env.action_masks())
        assert gym_env.action_masks()[action]
        obs, reward, terminated, truncated, _ = gym_env.step(action)
        if terminated or truncated:
            break


BROKEN_PAGE = """# A broken page

```python
x = 1
```

```python
# continues the block above
assert x == 1
y = 2
```

```python
print(y)       # a fresh namespace: NameError
```

    zerogym train alphazero --game tictactoe --set max_steps=3 --out runs/a
    zerogym train alphazero --game tictactoe --set max_steps=3 --out runs/a
    zerogym train alphazero --game tictactoe --out runs/b --resume
    zerogym arena --game tictactoe --agents runs/a/agent.pt runs/c/agent.pt pretrained:nothing --games 2
    zerogym arena --game tictactoe --agents uct:0 pretrained:go_5x5 --games 2
    zerogym play chess
    zerogym transfer grow --in runs/go5/agent.pt --blocks 6 --out grown.pt
    zerogym train pg --game connect_four --set no_such_field=1 --out runs/pg
    zerogym train alphazero --game connect_four --kwargs rows=0
    echo '{"simulations": 8, "max_steps": 4}' > ok.json
    echo '{"simulations": 8, "nope": 1}' > bad.json
    echo '{"simulations": 8' > broken.json
    zerogym train alphazero --game tictactoe --config ok.json --out runs/ok
    zerogym train alphazero --game tictactoe --config bad.json --out runs/bad
    zerogym train alphazero --game tictactoe --config missing.json --out runs/missing
    tensorboard --logdir runs/a/tb
    tensorboard --logdir runs/zz/tb
    gogui-twogtp -black "zerogym gtp --agent uct:20" -white "gnugo --mode gtp" -size 9
    python benchmarks/az_vs_pg.py --parallel 2 --no-such-option
    pip install ".[nothing]"
    scripts/sanitize.sh --dir /tmp/x python scripts/fuzz.py --seconds 1
    scripts/sanitize.sh --no-install pytest -q tests/nowhere
    mkdocs build --strict --no-such-flag
    scripts/sanitize.sh --thread --self-test
    scripts/sanitize.sh --threads pytest -q tests
    make all

Run `python benchmarks/none.py` and `zerogym arena` (a name, not a command).

```json
{"simulations": 8, "max_steps": "many"}
```

```ruby
puts 1
```
"""


def test_checkers_catch_errors():
    blocks = python_blocks(BROKEN_PAGE)
    assert [line for line, _ in blocks] == [4, 8, 14]
    assert python_chain(blocks, 1) == blocks[:2] and python_chain(blocks, 2) == blocks[2:]
    code = chain_code(python_chain(blocks, 1))
    assert code.split("\n")[3] == "x = 1" and code.split("\n")[8] == "assert x == 1"
    run_block(code, "chain")
    with pytest.raises(NameError):
        run_block(chain_code(python_chain(blocks, 2)), "fresh")
    with pytest.raises(ValueError, match="no python block comes before"):
        python_chain(blocks[1:], 0)

    walked = walk(BROKEN_PAGE)
    assert len(walked) == 27 and walked[-1][1] == "python benchmarks/none.py"

    def problems(prefix, nth=0):
        return "\n".join([p for _, command, p, _ in walked if command.startswith(prefix)][nth])

    assert problems("zerogym train alphazero --game tictactoe --set") == ""
    assert "already holds a run" in problems("zerogym train alphazero --game tictactoe --set", 1)
    assert "page started a run" in problems("zerogym train alphazero --game tictactoe --out")
    arena = problems("zerogym arena --game tictactoe --agents runs/a")
    assert "runs/c/agent.pt" in arena and "runs/a/agent.pt" not in arena
    assert "pretrained:nothing is not shipped" in arena
    arena = problems("zerogym arena --game tictactoe --agents uct:0")
    assert ">= 1" in arena and "plays go, not tictactoe" in arena
    assert "unknown game 'chess'" in problems("zerogym play chess")
    assert "runs/go5/agent.pt" in problems("zerogym transfer grow")
    assert "no_such_field" in problems("zerogym train pg")
    assert "rows" in problems("zerogym train alphazero --game connect_four")
    assert problems('echo \'{"simulations": 8, "max_steps": 4}\'') == ""
    assert "not JSON" in problems("echo '{\"simulations\": 8' > broken.json")
    assert problems("zerogym train alphazero --game tictactoe --config ok.json") == ""
    assert "nope" in problems("zerogym train alphazero --game tictactoe --config bad.json")
    assert "missing.json" in problems("zerogym train alphazero --game tictactoe --config missing.json")
    assert problems("tensorboard --logdir runs/a/tb") == "" and "runs/zz/tb" in problems("tensorboard --logdir runs/zz")
    assert "--capture-all-dead" in problems("gogui-twogtp") and "-white" in problems("gogui-twogtp")
    assert "no option --no-such-option" in problems("python benchmarks/az_vs_pg.py")
    assert "no extra 'nothing'" in problems("pip install")
    assert problems("scripts/sanitize.sh") == ""
    assert "tests/nowhere does not exist" in problems("scripts/sanitize.sh --no-install")
    assert problems("mkdocs build") == "mkdocs build has no option --no-such-flag"
    assert problems("scripts/sanitize.sh --thread --self-test") == ""
    assert "no option --threads" in problems("scripts/sanitize.sh --threads")
    assert "does not know" in problems("make all")
    assert "does not exist" in problems("python benchmarks/none.py")

    ((line, lang, code),) = [b for b in fenced_blocks(BROKEN_PAGE) if b[1] == "json"]
    assert BROKEN_PAGE.split("\n")[line - 1].startswith("{") and "max_steps" in config_problems(code)[0]
    fenced = fenced_problems(BROKEN_PAGE)
    assert len(fenced) == 2 and fenced[0].startswith(f"{line}: ") and "```ruby" in fenced[1]
    assert config_problems('{"simulations": 8, "max_steps": 4}') == []

    assert [(w, r, p) for w, r, p in split_line("printf 'a\\nb' | zerogym gtp --agent uct:5 # note")] == [
        (["printf", "a\\nb"], [], False),
        (["zerogym", "gtp", "--agent", "uct:5"], [], True),
    ]
    assert split_line("python x.py --replay a/<kind-hash>/b")[0][0][-1] == "a/PLACEHOLDER-kind-hash/b"
    assert parse_zerogym(["play", "--help"])[0] == "help"
    cheap = walk(
        "    printf 'boardsize 5\\nquit\\n' | zerogym gtp --agent uct:5\n    zerogym play --list\n"
        "    zerogym gtp --agent uct:5\n    zerogym arena --game tictactoe --agents random greedy\n"
    )
    assert [run for _, _, _, run in cheap] == [True, True, False, False]


def test_the_readme_says_how_to_reach_zerogym_before_its_first_bare_command():
    """After the two commands, `zerogym` is in .venv/bin, not on PATH: the README must say so before
    a reader meets the first command that writes it bare."""
    text = page_text("README.md")
    activate = text.find("source .venv/bin/activate")
    first_bare = min(line for line, command in commands_of(text) if command.split()[0] == "zerogym")
    assert activate >= 0 and text[:activate].count("\n") + 1 < first_bare
