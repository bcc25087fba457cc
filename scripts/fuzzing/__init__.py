"""Fuzzes the inputs zerogym takes from outside: state blobs, actions, the vector path, agent files, GTP, and
the threaded search.

    python scripts/fuzz.py --minutes 30 --seed 0                 # every target, one worker per core
    python scripts/fuzz.py --seconds 20 --targets blobs,actions  # a few targets, briefly
    python scripts/fuzz.py --replay runs/fuzz-findings/blobs/<signature>/<index>   # rerun one input
    scripts/sanitize.sh python scripts/fuzz.py --minutes 10      # against the ASan/UBSan build
    scripts/sanitize.sh --thread python scripts/fuzz.py --minutes 10 --targets search,vector   # under TSan

Targets (each input is built from (seed, target, index) alone, so a run is reproducible and any
input can be rebuilt from its index):

  blobs        State.load_bytes (and pickle.loads of a State) on mutated blobs of real positions of
               every game at several sizes.  A bad blob must raise ValueError and leave the state as it
               was; an accepted one must then work: legal_mask, observation, encode, copy, hash,
               pickling, and random legal play to the end.
  actions      odd Python objects as actions to State.step / is_legal / illegal_reason and to the AEC
               envs' step: an action is either a legal move played as its integer value or refused with
               IllegalMoveError / TypeError / ValueError, leaving everything byte for byte unchanged.
  vector       zerogym.vector.make(...).step (on 1 to 8 threads) with arrays of odd dtypes, shapes,
               layouts and values, and make with odd num_envs: accepted only when every action is an
               integer and legal (or -1), else refused with no game changed.
  symmetry     the board transforms of every game: a random game played again through a transform is the
               transformed game, every action map is a permutation with an inverse, and action() and
               policy() refuse an action, transform or vector out of range instead of wrapping around.
  text         parse_action and format_action of every game: a name parses back to its action; garbage
               text gives an action in range or a ValueError that says what to type.
  methods      the public methods a game's State class adds to State's, with odd arguments on real
               positions: a result, or TypeError / ValueError with the state unchanged.
  checkpoints  load_agent on mutated copies of the shipped agents (structured edits of the payload,
               byte edits of the .pt and .json files): it loads (and the agent then plays a move) or
               raises CheckpointError.
  gtp          random and mutated byte lines to GTPEngine.handle and serve: every answer is a
               well-formed "=..." or "?..." (or nothing for a blank line), and an error changes nothing.
  search       BatchedMCTS at drawn settings (threads, pipelined groups, search kind, leaves per tree, a
               capacity that fills) with an evaluator that answers by the position, oddly on some leaves:
               on its threads and groups it hands out exactly what one thread in one batch does, or both
               refuse the answer with ValueError and the trees still search.

Anything else is a finding: an unexpected exception, a broken promise, a hang, or a crash of the
process (a segfault or a sanitizer report: inputs run in worker processes, --jobs, which the main
process restarts after a crash).  Findings are counted by kind, and up to --examples inputs of each
kind are saved under --findings with the traceback or crash report and the command that replays them.
The markdown summary goes to --out.  Exit status 1 when there was any finding.

The time is shared between targets by --weights (checkpoint loads are slow, so they get less); each
worker runs every target for its share, worker j taking inputs j, j + jobs, j + 2 jobs, ...  With
--atheris TARGET (blobs or gtp, where the input is bytes) the atheris package, if installed, drives
one target with coverage feedback instead; plain random mutation is the default.
"""
# scripts/fuzz.py is the command. Here: targets/, one module per target; common, configs (the games and
# kwargs fuzzed) and positions (the corpus of real positions), shared by the targets; runner, running inputs
# in a process; workers, the worker processes and their supervisor; report, findings and the summary; cli,
# the command line.
