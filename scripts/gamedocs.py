"""Writes docs/games/ of this source checkout from the code: the pages and pictures zerogym.gamedocs makes.

python scripts/gamedocs.py              # write the pages and pictures into docs/games/
python scripts/gamedocs.py --check      # write nothing; exit 1 naming the files that differ
python scripts/gamedocs.py --out DIR    # another folder than docs/games/
"""

import argparse
import pathlib
import sys

import numpy as np

from zerogym import gamedocs

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "games"


def write(root=DOCS):
    """Write every page and picture under `root`."""
    from PIL import Image

    root = pathlib.Path(root)
    (root / "img").mkdir(parents=True, exist_ok=True)
    for name, text in gamedocs.pages().items():
        (root / name).write_text(text)
    for name, image in gamedocs.pictures().items():
        Image.fromarray(image).save(root / name)


def _same_picture(path, image):
    """True if `path` is a picture with exactly the pixels of `image` (False if missing or unreadable)."""
    from PIL import Image

    try:
        with Image.open(path) as saved:
            return np.array_equal(np.asarray(saved.convert("RGB")), image)
    except OSError:
        return False


def stale(root=DOCS):
    """The files under `root` that differ from what the code generates (missing ones included)."""
    root = pathlib.Path(root)
    out = [
        root / name
        for name, text in gamedocs.pages().items()
        if not (root / name).exists() or (root / name).read_text() != text
    ]
    return out + [root / name for name, image in gamedocs.pictures().items() if not _same_picture(root / name, image)]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python scripts/gamedocs.py", description="Write docs/games/ from the code.")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 naming the files that differ")
    ap.add_argument("--out", type=pathlib.Path, default=DOCS, help="the folder of the pages (default: docs/games)")
    args = ap.parse_args(argv)
    if not args.check:
        write(args.out)
        return
    bad = stale(args.out)
    if bad:
        sys.exit(f"stale: {', '.join(map(str, bad))}; regenerate with python scripts/gamedocs.py")


if __name__ == "__main__":
    main()
