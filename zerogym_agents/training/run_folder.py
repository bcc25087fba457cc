"""The one rule for run folders, used by every training command (train alphazero, train pg, transfer run).

`--out DIR` on a new folder (or an empty one, or one that holds no run) starts a run.  A folder that
holds a run needs `--resume` (continue from its checkpoint) or `--force` (start over: everything in
the folder is deleted first, so that no stale checkpoint, TensorBoard events, plots or arena results
of the earlier run remain).  `--resume` on a folder with nothing to resume is refused in one line
that says how to start instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
from typing import TYPE_CHECKING, Union

from zerogym_agents.core.constants import AGENT, CHECKPOINT, CONFIG, EXPERIMENT, TENSORBOARD

if TYPE_CHECKING:
    from torch.utils.tensorboard import SummaryWriter

# a trainer's log_dir: the folder of its TensorBoard events, None for the run folder's tb/, False for none
LogDir = Union[str, bool, None]

# files and folders that only a run writes: a folder holding any of them holds a run
RUN_MARKERS = (CHECKPOINT, CONFIG, AGENT, TENSORBOARD, EXPERIMENT)


def holds_run(out: str | os.PathLike[str]) -> bool:
    """Whether folder `out` holds (part of) a run."""
    return os.path.isdir(out) and any(os.path.exists(os.path.join(out, name)) for name in RUN_MARKERS)


def add_run_folder_arguments(
    parser: argparse.ArgumentParser, what: str = "the run"
) -> argparse._MutuallyExclusiveGroup:
    """--resume and --force (one or the other) on an argparse parser of a training command."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help=f"continue {what} in --out from its checkpoint")
    group.add_argument(
        "--force",
        action="store_true",
        help=f"start over in an --out that holds {what}: everything in it is deleted first",
    )
    return group


def prepare_run_folder(out: str, resume: bool = False, force: bool = False, checkpoint: str = CHECKPOINT) -> None:
    """Apply the run-folder rule to `out` before a training command starts (ValueError when it refuses).

    resume: `out` must hold `checkpoint` (a file, relative to out).  Otherwise a folder that
    holds a run is refused unless `force`, which deletes everything in it.
    """
    if resume:
        path = os.path.join(out, checkpoint)
        if not os.path.isfile(path):
            how = "use --force instead of --resume" if holds_run(out) else "leave out --resume"
            raise ValueError(f"{path}: no such file, nothing to resume in {out}; to start a run there, {how}")
        return
    if not holds_run(out):
        return
    if not force:
        raise ValueError(
            f"{out} already holds a run: add --resume to continue it, or --force to delete it and start over"
        )
    for name in os.listdir(out):
        path = os.path.join(out, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def tensorboard_writer(log_dir: LogDir, out: str) -> SummaryWriter | None:
    """The SummaryWriter of a run in folder `out` (see LogDir), or None when log_dir is False."""
    if log_dir is False:
        return None
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(log_dir or os.path.join(out, TENSORBOARD))
