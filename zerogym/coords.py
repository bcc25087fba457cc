"""Human coordinates: GTP-style column letters (no I) and 1-based rows, row 0 = rank 1.

Every game names its actions the way a person types them (parse_action accepts any case):
Go, Hex and Tic-tac-toe/Gomoku "D4" (plus "pass" / "swap"), Othello "d3" and "pass" (lower case,
as Othello is written and as OpenSpiel names its moves), Connect Four the column number "1".."W".  Row 1 is action row 0 in every game; only
the display differs (Go, Tic-tac-toe: row 1 at the bottom; Othello, Hex: row 1 at the top).
"""
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"   # 25 letters: enough for every supported board

# the extra action after the N*N points, per game: its name, or None when there is none
SPECIAL = {"go": "pass", "othello": "pass", "hex": "swap"}
LOWER_CASE = {"othello"}          # games whose column letters are written in lower case


def column_labels(game):
    """How a game's columns are labelled on its boards: "numbers", "lowercase" or "letters"."""
    return "numbers" if game == "connect_four" else "lowercase" if game in LOWER_CASE else "letters"


def column_letters(game):
    """The column letters of a game's boards, in the case it writes them."""
    return COLUMNS.lower() if game in LOWER_CASE else COLUMNS


def point_name(r, c):
    """'A1' for (0, 0), 'J1' for (0, 8): the GTP name of a point."""
    return f"{COLUMNS[c]}{r + 1}"


def parse_point(text, size):
    """(r, c) for a GTP point name like 'd4' on a size x size board, or ValueError saying why."""
    t = text.strip().upper()
    if len(t) < 2 or t[0] not in COLUMNS[:size] or not t[1:].isdigit():
        raise ValueError(f"{text!r} is not a point: use a column letter A..{COLUMNS[size - 1]} "
                         f"(no I) then a row 1..{size}, like A1")
    r, c = int(t[1:]) - 1, COLUMNS.index(t[0])
    if not 0 <= r < size:
        raise ValueError(f"{text!r}: row must be 1..{size}")
    return r, c


def _spec(obj):
    """The GameSpec of a GameSpec, a State or an env (wrapped or not)."""
    if hasattr(obj, "obs_shape"):
        return obj
    if hasattr(obj, "unwrapped"):
        return obj.unwrapped.state.spec
    return obj.spec


def format_action(spec, action):
    """The human name of `action` ("D4", "pass", "swap", or "3" for Connect Four's column 3).

    `spec` is a GameSpec, a State or an env; parse_action(spec, format_action(spec, a)) == a.
    """
    spec = _spec(spec)
    a = int(action)
    if not 0 <= a < spec.num_actions:
        raise ValueError(f"action {action!r} is out of range 0..{spec.num_actions - 1} for {spec.name}")
    h, w, _ = spec.obs_shape
    if spec.name == "connect_four":
        return str(a + 1)
    if a == h * w:
        return SPECIAL[spec.name]
    return f"{column_letters(spec.name)[a % w]}{a // w + 1}"


def input_help(spec):
    """What a person may type for a move in this game, as one phrase."""
    spec = _spec(spec)
    h, w, _ = spec.obs_shape
    if spec.name == "connect_four":
        return f"a column number 1..{w}"
    cols = column_letters(spec.name)
    letters = f"{cols[0]}..{cols[w - 1]}" + (f" (no {'i' if spec.name in LOWER_CASE else 'I'})" if w > 8 else "")
    example = format_action(spec, min(2, h - 1) * w + min(3, w - 1))
    text = f"a column letter {letters} then a row number 1..{h}, like {example}"
    if spec.name in SPECIAL:
        text += f", or {SPECIAL[spec.name]}"
    return text


def parse_action(spec, text):
    """The action a person means by `text` (case and spaces ignored), or ValueError saying what
    is allowed.  Legality is not checked: the State's step() does that and says why."""
    spec = _spec(spec)
    h, w, _ = spec.obs_shape
    t = "".join(str(text).split()).upper()
    if spec.name == "connect_four":
        for prefix in ("COLUMN", "COL"):
            if t.startswith(prefix) and t[len(prefix):].isdigit():
                t = t[len(prefix):]
        if t.isdigit() and 1 <= int(t) <= w:
            return int(t) - 1
        raise ValueError(f"{str(text).strip()!r} is not a column: type {input_help(spec)}")
    special = SPECIAL.get(spec.name)
    if special is not None and t == special.upper():
        return h * w
    if len(t) >= 2 and t[0] in COLUMNS[:w] and t[1:].isdigit() and 1 <= int(t[1:]) <= h:
        return (int(t[1:]) - 1) * w + COLUMNS.index(t[0])
    why = ""
    if t in ("PASS", "SWAP"):
        why = f"{spec.name} has no {t.lower()}; "
    elif t[:1] == "I" and t[1:].isdigit() and w > 8:
        why = "there is no column I (the letters skip it); "
    elif len(t) >= 2 and t[0] in COLUMNS + "I" and t[1:].isdigit():
        why = f"off the {h}x{w} board; " if t[0] not in COLUMNS[:w] or not 1 <= int(t[1:]) <= h else ""
    raise ValueError(f"{str(text).strip()!r} is not a move: {why}type {input_help(spec)}")
