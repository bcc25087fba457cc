"""Human coordinates: GTP-style column letters (no I) and 1-based rows, row 0 = rank 1."""
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"   # 25 letters: enough for every supported board


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
