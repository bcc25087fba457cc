"""Go core: hand-built positions for the rule edge cases, and property tests over random play.

Actions are r * N + c with row 0 = rank 1 (action 0 = "A1", GTP letters skip I), N * N = pass.
Expected values are derived by hand from the rules (area scoring, Tromp-Taylor counting, komi for
white, suicide illegal, two passes end the game) and, in the property tests, from a deliberately
naive reference implementation in this file (flood fills, a set of earlier boards).
"""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import zerogym
from zerogym import IllegalMoveError
from zerogym._core.go import GoState, make_spec
from zerogym.coords import parse_point

OCCUPIED = "that point is occupied"
SUICIDE = "suicide is not allowed: the stone's chain would have no liberties"
KO = "ko: immediately recapturing a single-stone ko is not allowed (play elsewhere first)"
SUPERKO = "that move repeats an earlier position (positional superko)"


# ---- helpers -------------------------------------------------------------------------------------
def A(name, n):
    """Action of a GTP point name on an n x n board."""
    r, c = parse_point(name, n)
    return r * n + c


def expected_board(n, black="", white=""):
    b = np.zeros((n, n), np.int8)
    for name in black.split():
        b[parse_point(name, n)] = 1
    for name in white.split():
        b[parse_point(name, n)] = 2
    return b


def setup(n, black="", white="", to_move="black", **kw):
    """A position built by playing the listed stones alternately (black first), with single
    passes for the side that has run out; asserts nothing was captured on the way."""
    s = GoState(n, **kw)
    bs, ws = [A(x, n) for x in black.split()], [A(x, n) for x in white.split()]
    seq = []
    while bs or ws:
        seq.append(bs.pop(0) if bs else n * n)
        seq.append(ws.pop(0) if ws else n * n)
    while seq and seq[-1] == n * n:
        seq.pop()
    if (len(seq) % 2 == 0) != (to_move == "black"):
        seq.append(n * n)
    for a in seq:
        s.step(a)
    assert not s.is_over()
    assert np.array_equal(s.board(), expected_board(n, black, white)), "setup captured something"
    assert s.current_player == (0 if to_move == "black" else 1)
    return s


def play(s, *names):
    n = s.spec.kwargs["board_size"]
    for name in names:
        s.step(n * n if name == "pass" else A(name, n))
    return s


def assert_illegal(s, name, reason):
    n = s.spec.kwargs["board_size"]
    a = n * n if name == "pass" else A(name, n)
    assert not s.is_legal(a)
    assert s.illegal_reason(a) == reason
    assert s.legal_mask()[a] == 0
    before = s.to_bytes()
    with pytest.raises(IllegalMoveError) as e:
        s.step(a)
    assert name.upper() in str(e.value) and s.spec.agents[s.current_player] in str(e.value)
    assert reason in str(e.value)
    assert s.to_bytes() == before


def ended(s, winner):
    assert s.is_terminal() and not s.is_truncated()
    assert s.winner == winner
    assert s.returns() == {0: (1.0, -1.0), 1: (-1.0, 1.0), -1: (0.0, 0.0)}[winner]
    assert s.legal_mask().sum() == 0 and s.illegal_reason(0) == "the game is over"


# ---- spec and kwargs -----------------------------------------------------------------------------
def test_spec_metadata():
    spec = make_spec()
    assert spec.kwargs == {"board_size": 19, "komi": 7.5, "superko": "positional", "max_moves": 722}
    assert spec.num_actions == 362 and spec.obs_shape == (19, 19, 7)
    assert spec.agents == ("black_0", "white_0")
    assert spec.reasons == ("legal", "action out of range", "the game is over", OCCUPIED, SUICIDE, KO, SUPERKO)
    assert [p for p, _ in spec.plane_info] == [
        "own",
        "opponent",
        "own_atari",
        "opponent_atari",
        "ko_banned",
        "black",
        "ones",
    ]
    assert len(spec.symmetries) == 8 and spec.symmetry_names[0] == "identity"
    assert spec.action_name(0) == "A1" and spec.action_name(8) == "J1" and spec.action_name(18) == "T1"
    assert spec.action_name(19) == "A2" and spec.action_name(360) == "T19" and spec.action_name(361) == "pass"
    assert make_spec(9, komi=6, max_moves=None).kwargs == {
        "board_size": 9,
        "komi": 6.0,
        "superko": "positional",
        "max_moves": 162,
    }
    assert make_spec(2, superko="simple", max_moves=5).kwargs["max_moves"] == 5
    made = zerogym.make_state("go", board_size=5)
    assert type(made) is GoState and made.spec.kwargs["board_size"] == 5


def test_start_position():
    s = GoState(5)
    assert s.current_player == 0 and s.move_count == 0 and s.last_action == -1 and s.passes == 0
    assert s.legal_mask().tolist() == [1] * 26
    assert s.board().tolist() == [[0] * 5] * 5
    assert s.area() == (0, 0) and s.score() == -7.5
    assert s.hash == s.recompute_hash()


@pytest.mark.parametrize(
    "kw",
    [
        dict(board_size=2),
        dict(board_size=5),
        dict(board_size=9, superko="simple"),
        dict(board_size=19),
        dict(board_size=25, max_moves=3),
    ],
)
def test_reset_writes_every_byte(kw):
    s = GoState(**kw)
    fresh = s.to_bytes()
    assert GoState(**kw).to_bytes() == fresh and GoState(**kw) == s
    while not s.is_over():
        s.step(int(s.legal_actions()[len(s.legal_actions()) // 2]))
    assert s.to_bytes() != fresh
    s.reset()
    assert s.to_bytes() == fresh and s.hash == s.recompute_hash()


def test_out_of_range_and_occupied():
    s = play(GoState(5), "C3")
    for a in (-1, 26):
        assert not s.is_legal(a)
        assert s.illegal_reason(a) == "action out of range"
    for a in (-1, 26, 10**12):
        with pytest.raises(IllegalMoveError, match="out of range"):
            s.step(a)
    with pytest.raises(IllegalMoveError):
        s.step("C3")
    assert_illegal(s, "C3", OCCUPIED)


# ---- captures ------------------------------------------------------------------------------------
def test_single_stone_capture():
    s = setup(5, black="B3 D3 C2", white="C3")
    assert s.liberties(2, 2) == 1
    play(s, "C4")
    assert np.array_equal(s.board(), expected_board(5, "B3 D3 C2 C4"))
    assert s.liberties(1, 2) == 4 and s.liberties(2, 1) == 4  # C2: B2 D2 C1 and C3 again
    assert s.liberties(2, 2) == 0
    assert s.hash == s.recompute_hash()
    assert s.ko_point() is None  # C4 has own liberties: no ko
    assert_illegal(s, "C3", SUICIDE)  # the hole is black's now
    s.check_chains()


def test_multi_stone_capture():
    s = setup(5, black="B3 B4 D3 D4 C2", white="C3 C4")
    assert s.liberties(2, 2) == 1 and s.liberties(3, 2) == 1
    play(s, "C5")
    assert np.array_equal(s.board(), expected_board(5, "B3 B4 D3 D4 C2 C5"))
    assert s.area() == (25, 0)  # every empty point reaches black only
    s.check_chains()


def test_several_chains_captured_by_one_move():
    s = setup(5, black="C1 B2 D2 A3 B4 E3 D4 C5", white="C2 B3 D3 C4")
    play(s, "C3")
    assert np.array_equal(s.board(), expected_board(5, "C1 B2 D2 A3 B4 E3 D4 C5 C3"))
    assert s.liberties(2, 2) == 4
    assert s.ko_point() is None  # four stones captured
    s.check_chains()
    assert s.hash == s.recompute_hash()


def test_two_chains_captured_in_the_corner_is_not_ko():
    s = setup(5, black="C1 B2 A3", white="B1 A2")
    play(s, "A1")  # no liberty of its own, but captures B1 and A2
    assert np.array_equal(s.board(), expected_board(5, "C1 B2 A3 A1"))
    assert s.ko_point() is None
    assert_illegal(s, "B1", SUICIDE)  # A1 keeps A2 (resp. B1) as a liberty: nothing to take
    assert_illegal(s, "A2", SUICIDE)


def test_capture_on_the_edge_and_in_the_corner():
    s = setup(5, black="A2", white="A1")
    assert s.liberties(0, 0) == 1
    play(s, "B1")
    assert s.board()[0, 0] == 0 and s.board()[0, 1] == 1 and s.board()[1, 0] == 1
    s = setup(5, black="B1 D1", white="C1")
    play(s, "C2")
    assert np.array_equal(s.board(), expected_board(5, "B1 D1 C2"))


def test_corner_stone_captured_when_its_last_liberty_goes():
    s = setup(5, black="D5", white="E5")
    assert s.liberties(4, 4) == 1
    play(s, "E4")
    assert s.board()[4, 4] == 0 and s.area()[0] == 25


# ---- suicide -------------------------------------------------------------------------------------
def test_single_stone_suicide_is_illegal():
    s = setup(5, black="A2 B1", to_move="white")
    assert_illegal(s, "A1", SUICIDE)
    assert s.legal_mask().sum() == 26 - 2 - 1


def test_multi_stone_suicide_is_illegal():
    s = setup(5, black="B1 B2 A3", white="A1", to_move="white")
    assert s.liberties(0, 0) == 1
    assert_illegal(s, "A2", SUICIDE)  # A1-A2 would have no liberty and captures nothing


def test_move_that_looks_like_suicide_but_captures_is_legal():
    s = setup(5, black="A3 B2 C1", white="A2 B1")
    assert s.is_legal(A("A1", 5))
    play(s, "A1")
    assert np.array_equal(s.board(), expected_board(5, "A3 B2 C1 A1"))
    assert s.liberties(0, 0) == 2


def test_filling_own_last_liberty_is_suicide_but_not_when_it_captures():
    # black chain A1-B1 with its last liberty at C1; white C2, D1 around it
    s = setup(5, black="A1 B1", white="A2 B2 C2 D1")
    assert s.liberties(0, 0) == 1
    assert_illegal(s, "C1", SUICIDE)
    s = setup(5, black="A1 B1 E2 D2", white="A2 B2 C2 D1 E1")  # now C1 also captures D1-E1
    assert s.liberties(0, 3) == 1
    play(s, "C1")
    assert s.board()[0, 3] == 0 and s.board()[0, 4] == 0 and s.liberties(0, 0) == 1


# ---- ko and superko ------------------------------------------------------------------------------
KO_BLACK = "B3 A2 B1"  # black to capture the white stone on B2 by playing C2
KO_WHITE = "C3 B2 D2 C1"


@pytest.mark.parametrize("superko", ["positional", "simple"])
def test_simple_ko(superko):
    s = setup(5, black=KO_BLACK, white=KO_WHITE, superko=superko)
    assert s.liberties(1, 1) == 1
    play(s, "C2")
    assert s.board()[1, 1] == 0 and s.board()[1, 2] == 1
    assert s.ko_point() == (1, 1) and s.liberties(1, 2) == 1
    assert_illegal(s, "B2", KO)
    obs = s.observation(1)
    assert obs[1, 1, 4] == 1 and obs[:, :, 4].sum() == 1  # the mover sees the ko point
    assert s.observation(0)[:, :, 4].sum() == 0  # the other player does not
    assert obs[1, 2, 3] == 1  # black's ko stone is in atari
    play(s, "E5", "E4")  # a ko threat and an answer
    assert s.ko_point() is None and s.is_legal(A("B2", 5))
    play(s, "B2")  # white retakes
    assert s.board()[1, 2] == 0 and s.board()[1, 1] == 2
    assert s.ko_point() == (1, 2)
    assert_illegal(s, "C2", KO)


@pytest.mark.parametrize("superko", ["positional", "simple"])
def test_a_pass_clears_the_ko(superko):
    s = setup(5, black=KO_BLACK, white=KO_WHITE, superko=superko)
    play(s, "C2", "pass")
    assert s.ko_point() is None
    play(s, "E5")  # black plays elsewhere
    assert s.is_legal(A("B2", 5))
    play(s, "B2")
    assert s.board()[1, 1] == 2


def test_double_ko_cycle_is_superko_only_in_positional_mode():
    # two kos on a 7x7 board: black can take the lower one (at C2), white the upper one (at C6)
    black = KO_BLACK + " C7 B6 D6 C5"
    white = KO_WHITE + " B7 A6 B5"
    pos = setup(7, black=black, white=white, superko="positional")
    simple = setup(7, black=black, white=white, superko="simple")
    start = pos.board().copy()
    for s in (pos, simple):
        play(s, "C2", "C6", "pass", "B2")  # take, take the other, pass, retake the first
        assert s.ko_point() == (1, 2)  # black may not retake C2 at once, but B6 is no ko
    assert simple.is_legal(A("B6", 7))
    play(simple, "B6")  # recreates the start board: fine with simple ko
    assert np.array_equal(simple.board(), start)
    assert_illegal(pos, "B6", SUPERKO)
    obs = pos.observation(0)
    assert obs[5, 1, 4] == 1 and obs[1, 2, 4] == 1 and obs[:, :, 4].sum() == 2


# ---- snapback ------------------------------------------------------------------------------------
def test_snapback():
    s = setup(5, black="A3 B3 C3 D2 D1", white="A2 B2 C2 C1")
    assert s.liberties(0, 2) == 2  # white's only liberties: A1 and B1
    play(s, "A1")  # throw-in, in atari itself
    assert s.liberties(0, 0) == 1 and s.liberties(1, 0) == 1
    play(s, "B1")  # white captures the throw-in...
    assert s.board()[0, 0] == 0 and s.liberties(0, 1) == 1
    assert s.ko_point() is None  # B1 joined its own chain: no ko
    play(s, "A1")  # ...and black takes five stones
    assert np.array_equal(s.board(), expected_board(5, "A3 B3 C3 D2 D1 A1"))
    assert s.area() == (25, 0)
    s.check_chains()


# ---- scoring -------------------------------------------------------------------------------------
SEKI_BLACK = "C1 C2 F1 F2 F3 E3 E4 F4 G4"
SEKI_WHITE = "E1 E2 B1 B2 B3 C3 D3 A4 B4 C4 D4"


def test_seki_shared_liberties_count_for_nobody_and_eyes_count():
    # 7x7: black C1-C2 and white E1-E2 share the liberties D1, D2 (seki); white's eye A1-A3,
    # black's eye G1-G3; rows 5-7 touch both walls.  Black: 9 stones + 3, white: 11 stones + 3.
    s = setup(7, black=SEKI_BLACK, white=SEKI_WHITE, komi=0)
    assert s.liberties(0, 2) == 2 and s.liberties(0, 4) == 2
    assert s.area() == (12, 14) and s.score() == -2
    play(s, "pass", "pass")
    ended(s, 1)
    s = setup(7, black=SEKI_BLACK, white=SEKI_WHITE, komi=-2)
    play(s, "pass", "pass")
    ended(s, -1)
    s = setup(7, black=SEKI_BLACK, white=SEKI_WHITE, komi=-2.5)
    play(s, "pass", "pass")
    ended(s, 0)


def test_filling_a_seki_liberty_is_self_atari():
    s = setup(7, black=SEKI_BLACK, white=SEKI_WHITE, komi=0)
    play(s, "D1")  # black fills a shared liberty...
    assert s.liberties(0, 2) == 1
    play(s, "D2")  # ...and white captures C1 C2 D1
    assert s.board()[0, 2] == 0 and s.board()[1, 2] == 0 and s.board()[0, 3] == 0
    # black: 7 stones + G1-G3; white: 12 stones + A1-A3 + the emptied C1 C2 D1 (reach white only)
    assert s.area() == (7 + 3, 12 + 3 + 3)


@pytest.mark.parametrize("komi, winner", [(3.5, 0), (4, -1), (4.5, 1), (0, 0), (-1, 0)])
def test_komi_decides(komi, winner):
    s = play(GoState(2, komi=komi), "A1", "pass", "pass")
    assert s.area() == (4, 0) and s.score() == 4 - komi
    ended(s, winner)


def test_empty_board_goes_to_white_on_komi():
    s = play(GoState(9), "pass", "pass")
    ended(s, 1)
    assert s.score() == -7.5 and s.area() == (0, 0)


def test_score_counts_regions_reaching_one_colour():
    # 5x5: black wall on column B, white wall on column D; column A black, E white, C neutral
    s = setup(5, black="B1 B2 B3 B4 B5", white="D1 D2 D3 D4 D5", komi=0.5)
    assert s.area() == (10, 10) and s.score() == -0.5
    play(s, "C3")
    assert s.area() == (11, 10)  # C1 C2 C4 C5 still reach both
    play(s, "pass", "pass")
    ended(s, 0)


# ---- passes and move limit -----------------------------------------------------------------------
def test_two_passes_end_the_game_a_pass_then_a_move_does_not():
    s = play(GoState(5), "pass")
    assert s.passes == 1 and not s.is_over() and s.current_player == 1
    play(s, "C3")
    assert s.passes == 0
    play(s, "pass")
    assert s.passes == 1 and not s.is_over()
    play(s, "C4", "pass")
    assert not s.is_over() and s.passes == 1
    play(s, "pass")
    assert s.passes == 2
    ended(s, 1)  # white's 25 points + komi
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.step(25)


def test_pass_is_always_legal_and_keeps_the_board():
    s = setup(3, black="A1 B2 C3", white="A3 C1")
    before = s.board().copy()
    assert s.is_legal(9) and s.legal_mask()[9] == 1
    h = s.hash
    play(s, "pass")
    assert np.array_equal(s.board(), before) and s.hash != h and s.hash == s.recompute_hash()


def test_max_moves_truncates():
    s = GoState(5, max_moves=3)
    play(s, "A1", "B1", "C1")
    assert s.is_truncated() and not s.is_terminal() and s.is_over()
    assert s.winner == -1 and s.returns() == (0.0, 0.0)
    assert s.legal_mask().sum() == 0
    assert s.illegal_reason(25) == "the game is over"


def test_default_max_moves_and_two_passes_on_the_last_move():
    s = GoState(2)
    assert s.spec.kwargs["max_moves"] == 8
    play(s, "A1", "B2", "pass", "pass")
    ended(s, 1)  # 1 - 1 - 7.5
    s = GoState(2, max_moves=2)
    play(s, "pass", "pass")  # the game ends by its rules on the last move
    ended(s, 1)


# ---- 2x2 and 3x3 ---------------------------------------------------------------------------------
def test_2x2_suicide():
    s = play(GoState(2), "A1", "pass", "B2")
    assert_illegal(s, "A2", SUICIDE)
    assert_illegal(s, "B1", SUICIDE)
    assert s.legal_actions().tolist() == [4]  # white can only pass


@pytest.mark.parametrize("superko", ["positional", "simple"])
def test_2x2_capture_recapture_and_superko(superko):
    # (a single-stone ko cannot arise on 2x2: a stone in an enemy eye at a corner touches both
    # other colours' stones, so any capture there takes two stones.)
    s = play(GoState(2, superko=superko), "A1", "B2", "A2", "pass", "B1")  # black takes B2
    assert s.board().tolist() == [[1, 1], [1, 0]]
    assert s.liberties(0, 0) == 1
    assert s.ko_point() is None  # B1 had a friendly neighbour: no ko
    play(s, "B2")  # white takes three stones: looks like suicide
    assert s.board().tolist() == [[0, 0], [0, 2]]
    s.check_chains()
    # black A1 would recreate the board after move 2 (A1 black, B2 white)
    if superko == "positional":
        assert_illegal(s, "A1", SUPERKO)
        assert s.legal_actions().tolist() == [1, 2, 4]
        assert s.observation()[0, 0, 4] == 1 and s.observation()[:, :, 4].sum() == 1
    else:
        assert s.legal_actions().tolist() == [0, 1, 2, 4]
        play(s, "A1")
        assert s.board().tolist() == [[1, 0], [0, 2]]


def test_3x3_corner_ko():
    s = setup(3, black="C1 B2", white="A2 B1")
    play(s, "A1")
    assert s.ko_point() == (0, 1)
    assert_illegal(s, "B1", KO)
    play(s, "C3", "C2")  # white elsewhere, black answers
    assert s.ko_point() is None and s.is_legal(A("B1", 3))
    play(s, "B1")  # now white may take A1
    assert s.board()[0, 0] == 0 and s.board()[0, 1] == 2


# ---- independence of sizes and instances ---------------------------------------------------------
def test_5x5_and_19x19_live_side_by_side():
    small, big = GoState(5), GoState(19)
    small.step(12)
    big.step(180)
    assert small.num_actions == 26 and big.num_actions == 362
    assert len(small.legal_actions()) == 25 and len(big.legal_actions()) == 361
    assert small.board()[2, 2] == 1 and big.board()[9, 9] == 1
    assert small.observation().shape == (5, 5, 7) and big.observation().shape == (19, 19, 7)
    small2 = GoState(5, superko="simple", max_moves=4)
    assert small.spec.kwargs["max_moves"] == 50 and small2.spec.kwargs["max_moves"] == 4
    assert small.to_bytes() != GoState(5).to_bytes()


def test_observation_planes_by_hand():
    s = setup(5, black="A2 C3", white="A1", to_move="black")
    ob, ow = s.observation(0), s.observation(1)
    assert ob[1, 0, 0] == 1 and ob[2, 2, 0] == 1 and ob[0, 0, 1] == 1 and ob[:, :, 0].sum() == 2
    assert ow[0, 0, 0] == 1 and ow[1, 0, 1] == 1 and ow[:, :, 1].sum() == 2
    assert ob[0, 0, 3] == 1 and ob[:, :, 3].sum() == 1 and ob[:, :, 2].sum() == 0  # A1: one liberty (B1)
    assert ow[0, 0, 2] == 1 and ow[:, :, 2].sum() == 1 and ow[:, :, 3].sum() == 0
    assert (ob[:, :, 5] == 1).all() and (ow[:, :, 5] == 0).all()
    assert (ob[:, :, 6] == 1).all() and (ow[:, :, 6] == 1).all()
    assert ob[:, :, 4].sum() == 0
    assert np.array_equal(s.observation(), ob)
    enc = s.encode()
    assert enc.shape == (7, 5, 5) and np.array_equal(enc, np.moveaxis(ob, 2, 0).astype(np.float32))
    assert np.array_equal(s(), ob)


def test_board_and_text_render():
    from zerogym.render import text_board

    s = play(GoState(9), "A1", "J9")
    b = s.board()
    assert b[0, 0] == 1 and b[8, 8] == 2 and b.sum() == 3
    text = text_board(s, symbols=".XO", row0_at_bottom=True)
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHJ")
    assert lines[1].split()[0] == "9" and lines[9].split()[0] == "1"
    assert "X" in lines[9] and "[O]" in lines[1]


# ---- property tests over random play --------------------------------------------------------------
class Ref:
    """Naive Go from the rules: flood fills and a set of every earlier board."""

    def __init__(self, n, komi, superko, max_moves):
        self.n, self.komi, self.superko, self.max_moves = n, komi, superko, max_moves
        self.board = [0] * (n * n)
        self.to_play, self.moves, self.passes, self.ko = 0, 0, 0, None
        self.history = {tuple(self.board)}
        self.status = "running"

    def nbrs(self, i):
        r, c = divmod(i, self.n)
        for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= rr < self.n and 0 <= cc < self.n:
                yield rr * self.n + cc

    def chain(self, board, i):
        color, stones, libs, todo = board[i], {i}, set(), [i]
        while todo:
            j = todo.pop()
            for k in self.nbrs(j):
                if board[k] == 0:
                    libs.add(k)
                elif board[k] == color and k not in stones:
                    stones.add(k)
                    todo.append(k)
        return stones, libs

    def after(self, a):
        """(board after placing at a, stones captured, liberties of the placed chain)."""
        me = self.to_play + 1
        board = list(self.board)
        board[a] = me
        captured = []
        for k in self.nbrs(a):
            if board[k] == 3 - me:
                stones, libs = self.chain(board, k)
                if not libs:
                    captured += stones
                    for j in stones:
                        board[j] = 0
        return board, captured, self.chain(board, a)

    def reason(self, a):
        if self.status != "running":
            return "the game is over"
        if a == self.n * self.n:
            return None
        if self.board[a]:
            return OCCUPIED
        if a == self.ko:
            return KO
        board, captured, (stones, libs) = self.after(a)
        if not libs:
            return SUICIDE
        if self.superko == "positional" and tuple(board) in self.history:
            return SUPERKO
        return None

    def step(self, a):
        self.moves += 1
        if a == self.n * self.n:
            self.passes += 1
            self.ko = None
        else:
            board, captured, (stones, libs) = self.after(a)
            self.ko = captured[0] if len(captured) == 1 and len(stones) == 1 and libs == set(captured) else None
            self.board = board
            self.passes = 0
            self.history.add(tuple(board))
        self.to_play = 1 - self.to_play
        if self.passes == 2:
            self.status = "terminal"
        elif self.moves >= self.max_moves:
            self.status = "truncated"

    def area(self):
        black = self.board.count(1)
        white = self.board.count(2)
        seen = set()
        for i in range(self.n * self.n):
            if self.board[i] == 0 and i not in seen:
                region, reach, todo = {i}, set(), [i]
                while todo:
                    j = todo.pop()
                    for k in self.nbrs(j):
                        if self.board[k] == 0 and k not in region:
                            region.add(k)
                            todo.append(k)
                        elif self.board[k]:
                            reach.add(self.board[k])
                seen |= region
                if reach == {1}:
                    black += len(region)
                elif reach == {2}:
                    white += len(region)
        return black, white


game_kwargs = st.fixed_dictionaries(
    {
        "board_size": st.sampled_from([2, 3, 4, 5, 6]),
        "komi": st.sampled_from([0, 0.5, 2, 7.5, -3]),
        "superko": st.sampled_from(["positional", "simple"]),
        "max_moves": st.sampled_from([None, 7, 40]),
    }
)


def draw_move(data, s, ref_rng_bias):
    legal = s.legal_actions()
    # prefer stones over passes so that games get long enough to capture and repeat
    stones = legal[legal != s.num_actions - 1]
    if len(stones) and data.draw(st.integers(0, 9), label="stone?") < ref_rng_bias:
        return int(data.draw(st.sampled_from(stones.tolist()), label="move"))
    return int(data.draw(st.sampled_from(legal.tolist()), label="move"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kw=game_kwargs, data=st.data())
def test_random_play_matches_the_reference_and_keeps_invariants(kw, data):
    s = GoState(**kw)
    ref = Ref(kw["board_size"], kw["komi"], kw["superko"], s.spec.kwargs["max_moves"])
    n = kw["board_size"]
    na = n * n + 1
    syms = s.symmetries()
    k = data.draw(st.integers(0, len(syms) - 1), label="symmetry")
    mirrored = GoState(**kw)
    for _ in range(60):
        mask = s.legal_mask()
        reasons = [ref.reason(a) for a in range(na)]
        assert mask.tolist() == [int(r is None) for r in reasons]
        assert s.legal_actions().tolist() == [a for a in range(na) if reasons[a] is None]
        for a in range(na):
            assert s.is_legal(a) == (mask[a] == 1)
            assert s.illegal_reason(a) == reasons[a]
        assert s.board().flatten().tolist() == ref.board
        assert s.current_player == ref.to_play and s.move_count == ref.moves and s.passes == ref.passes
        assert s.hash == s.recompute_hash()
        s.check_chains()
        assert s.area() == ref.area()
        assert s.score() == ref.area()[0] - ref.area()[1] - kw["komi"]
        # ko/superko plane: the mover's banned empty points, by reason
        obs = s.observation()
        banned = [int(r in (KO, SUPERKO)) for r in reasons[:-1]] if ref.status == "running" else [0] * (na - 1)
        assert obs[:, :, 4].flatten().tolist() == banned
        assert s.observation(1 - s.current_player)[:, :, 4].sum() == 0
        # symmetry: the transformed game has the transformed mask and observation
        assert np.array_equal(syms.policy(mask, k), mirrored.legal_mask())
        assert np.array_equal(syms.observation(obs, k), mirrored.observation())
        if ref.status != "running":
            break
        # illegal moves raise and change nothing
        snap = s.to_bytes()
        bad = [a for a in range(na) if reasons[a] is not None]
        if bad:
            a = data.draw(st.sampled_from(bad), label="illegal")
            with pytest.raises(IllegalMoveError) as e:
                s.step(a)
            assert s.spec.action_name(a) in str(e.value) and s.spec.agents[s.current_player] in str(e.value)
            assert reasons[a] in str(e.value)
            assert s.to_bytes() == snap
        # copies are independent, pickles round-trip
        c = s.copy()
        assert c == s and c.to_bytes() == snap
        p = pickle.loads(pickle.dumps(s))
        assert p == s and p.hash == s.hash and np.array_equal(p.legal_mask(), mask)
        a = draw_move(data, s, 8)
        c.step(a)
        assert s.to_bytes() == snap and s.move_count == ref.moves
        blk, wht = int((s.board() == 1).sum()), int((s.board() == 2).sum())
        me = s.current_player
        s.step(a)
        ref.step(a)
        mirrored.step(syms.action(a, k))
        assert s == c and s.hash == c.hash
        nb, nw = int((s.board() == 1).sum()), int((s.board() == 2).sum())
        if a == na - 1:
            assert (nb, nw) == (blk, wht)
        elif me == 0:
            assert nb == blk + 1 and nw <= wht
        else:
            assert nw == wht + 1 and nb <= blk
    assert s.is_terminal() == (ref.status == "terminal")
    assert s.is_truncated() == (ref.status == "truncated")
    if ref.status == "terminal":
        b, w = ref.area()
        d = b - w - kw["komi"]
        assert s.winner == (0 if d > 0 else 1 if d < 0 else -1)
        assert s.returns() == ((1.0, -1.0) if d > 0 else (-1.0, 1.0) if d < 0 else (0.0, 0.0))
    elif ref.status == "truncated":
        assert s.winner == -1 and s.returns() == (0.0, 0.0)


@settings(max_examples=15, deadline=None)
@given(n=st.sampled_from([5, 9]), data=st.data())
def test_copy_is_independent(n, data):
    s = GoState(n)
    for _ in range(data.draw(st.integers(0, 20))):  # stones only: the game stays running
        s.step(int(data.draw(st.sampled_from(s.legal_actions()[:-1].tolist()))))
    before = s.to_bytes()
    c = s.copy()
    while not c.is_over():
        c.step(int(c.legal_actions()[-2] if len(c.legal_actions()) > 1 else c.legal_actions()[0]))
    assert s.to_bytes() == before and c.to_bytes() != before
    d = GoState(n)
    d.copy_from(s)
    assert d == s
    with pytest.raises(ValueError):
        GoState(n + 1).copy_from(s)


def test_a_point_that_is_not_two_ints_is_refused():
    # liberties(0.5, 0.5) used to follow the chain links of a border point and never return
    s = GoState(board_size=5)
    s.step(2 * 5 + 2)
    for r, c in ((0.5, 0.5), (2.0, 2), (True, 0), ("2", 2)):
        with pytest.raises(TypeError, match="ints"):
            s.liberties(r, c)
    assert s.liberties(np.int64(2), 2) == 4
