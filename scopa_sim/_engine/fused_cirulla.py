"""The jitted self-play loop of Cirulla (RULES.md §10): many hands, or matches to the
target, with kernel policies, in one call, writing the rows of :mod:`.fused`'s layout
plus Cirulla's items.

Each hand is dealt, played and scored by the Cirulla step kernels
(:func:`.streams.shuffle_deal_cirulla` with its void deals, :func:`.step.start_hand_cirulla`
with the opening count, :func:`.step.legal_plays_cirulla`, :func:`.step.choose_cirulla`,
:func:`.step.apply_play_cirulla`, :func:`.step.score_state_cirulla`), from the streams and
dealers of :func:`.fused.fused_hands`, inside one loop that keeps its buffers: so its
rows are, by construction, those of the step path with the same draws (the tests
replay them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    C_DEALER,
    C_FIRST,
    C_HAND,
    C_ITEMS,
    C_MATCH,
    C_PLAYS,
    C_REDEALS,
    C_STATS,
    C_TOTALS,
    C_WINNER,
    I_DECLARATIONS,
    I_GRANDE,
    I_PICCOLA,
    I_TOTAL,
    MAX_HANDS_PER_MATCH,
    MAX_PLAYS,
    MODE_HANDS,
    MODE_MATCHES,
    MODE_SELFPLAY,
    N_ITEMS,
    N_ITEMS_CIRULLA,
    N_ROW_COLS,
    N_STATE,
    R_PLAYERS,
    R_SIDES,
    R_TARGET,
    S_DONE,
    S_PILES,
    S_PLAYS,
    S_TURN,
    SCRATCH,
    STREAM_DEAL,
    STREAM_DEALER,
    STREAM_PLAY,
)
from .policy import EXPERT_SCRATCH
from .policy_cirulla import EXPERT_DECLARES
from .scoring import all_denari_wins, match_winner, side_stats
from .step import (
    apply_play_cirulla,
    choose_cirulla,
    legal_plays_cirulla,
    score_state_cirulla,
    start_hand_cirulla,
)
from .streams import (
    GOLDEN,
    RNG_WORDS,
    below,
    derive_seed,
    seed_finish,
    seed_prefix,
    shuffle_deal_cirulla,
)

__all__ = [
    "CIRULLA_ITEMS",
    "C_CIRULLA",
    "N_ROW_COLS_CIRULLA",
    "fused_hands_cirulla",
    "fused_rows_cirulla",
]

#: A Cirulla row's extra columns, after the others (``out[C_CIRULLA + 3 * side + k,
#: row]``): the side's grande, piccola and declared points (``CIRULLA_ITEMS`` order).
C_CIRULLA = N_ROW_COLS
CIRULLA_ITEMS = (I_GRANDE, I_PICCOLA, I_DECLARATIONS)
N_ROW_COLS_CIRULLA = C_CIRULLA + 4 * len(CIRULLA_ITEMS)


@njit(cache=True, nogil=True)
def fused_hands_cirulla(rules, policies, seed, first_unit, count, mode, out_points, out_cols):
    """:func:`.fused.fused_hands` under Cirulla's rules: units ``first_unit .. first_unit +
    count - 1`` (hands, or matches to the target with ``MODE_MATCHES``) played with the
    kernel policies ``policies`` (one code a seat), the same streams, dealers and stop
    rule; return ``(units done, rows written)``. Each side's points go to
    ``out_points[row, side]`` (unless it has no rows), the hand's row to ``out_cols[:,
    row]`` (unless it has no columns; :data:`N_ROW_COLS_CIRULLA` columns): the columns of
    :func:`.fused.fused_hands` (``C_REDEALS`` counts the void deals, the total counts
    Cirulla's items) and the grande, piccola and declarations at :data:`C_CIRULLA`. A
    cappotto (``cappotto``) ends the match. Raises ``ValueError`` when a match outgrows
    ``out_cols`` past ``MAX_HANDS_PER_MATCH``."""
    g = GOLDEN
    players = rules[R_PLAYERS]
    ns = rules[R_SIDES]
    deck = np.empty(40, dtype=np.int64)
    voids = np.empty(0, dtype=np.int64)  # counted only
    state = np.zeros(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    btk = np.empty(MAX_PLAYS, dtype=np.int64)
    bmt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    vals = np.empty(MAX_PLAYS, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    it = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)
    keep_points = out_points.shape[0] > 0
    keep_rows = out_cols.shape[1] > 0
    cappotto = all_denari_wins(rules)
    target = rules[R_TARGET]
    totals = np.zeros(4, dtype=np.int64)
    cap = out_cols.shape[1]
    done = 0
    hand_no = 0
    row = 0
    dealer = 0
    while done < count:
        unit = first_unit + done
        if hand_no == 0:
            if mode == MODE_MATCHES:
                if row + 64 > cap:  # a match of more hands than that is astronomically rare
                    return done, row
                dealer = below(derive_seed(seed, unit, 0, STREAM_DEALER) + g, players)
                for s in range(4):
                    totals[s] = 0
            else:
                dealer = unit % players
        elif hand_no == MAX_HANDS_PER_MATCH or row == cap:
            raise ValueError("fused_hands_cirulla: a match did not end within the output buffer")
        if mode == MODE_SELFPLAY:
            prefix = seed_prefix(seed, 0, unit)
        else:
            prefix = seed_prefix(seed, unit, hand_no)
        rng[0] = seed_finish(prefix, STREAM_DEAL)
        rng[1] = 0
        redeals = shuffle_deal_cirulla(rules, rng, deck, voids)
        start_hand_cirulla(state, rules, deck, dealer, redeals)
        rng[0] = seed_finish(prefix, STREAM_PLAY)
        rng[1] = 0
        while not state[S_DONE]:
            n = legal_plays_cirulla(state, rules, bc, btk, bmt, sc)
            i = choose_cirulla(state, rules, policies[state[S_TURN]], rng, bc, btk, bmt, n,
                               EXPERT_DECLARES, vals, xs, bt, bm, sc)  # fmt: skip
            apply_play_cirulla(state, rules, bc[i], btk[i], bmt[i])
        score_state_cirulla(state, rules, it)
        winner = -1
        if mode == MODE_MATCHES:
            for s in range(ns):
                totals[s] += it[s, I_TOTAL]
            winner = match_winner(
                (totals[0], totals[1], totals[2], totals[3]),
                (state[S_PILES], state[S_PILES + 1], state[S_PILES + 2], state[S_PILES + 3]),
                ns, target, cappotto,
            )  # fmt: skip
        else:
            for s in range(ns):
                totals[s] = it[s, I_TOTAL]
        if keep_points:
            for s in range(ns):
                out_points[row, s] = it[s, I_TOTAL]
        if keep_rows:
            first = dealer + 1 if dealer + 1 < players else 0
            out_cols[C_MATCH, row] = done
            out_cols[C_HAND, row] = hand_no
            out_cols[C_DEALER, row] = dealer
            out_cols[C_FIRST, row] = first
            out_cols[C_REDEALS, row] = redeals
            out_cols[C_PLAYS, row] = state[S_PLAYS]
            for s in range(ns):
                for k in range(N_ITEMS):
                    out_cols[C_ITEMS + s * N_ITEMS + k, row] = it[s, k]
                stats = side_stats(state[S_PILES + s])
                for k in range(4):
                    out_cols[C_STATS + 4 * s + k, row] = stats[k]
                out_cols[C_TOTALS + s, row] = totals[s]
                for k in range(3):
                    out_cols[C_CIRULLA + 3 * s + k, row] = it[s, I_GRANDE + k]
            out_cols[C_WINNER, row] = winner
        row += 1
        if mode != MODE_MATCHES or winner >= 0:
            done += 1
            hand_no = 0
        else:
            hand_no += 1
            dealer += 1
            if dealer == players:
                dealer = 0
    return count, row


def fused_rows_cirulla(rules, policies, seed, by_match, first_unit, n_units, out):
    """:func:`.fused.fused_rows` under Cirulla's rules: the rows of ``n_units`` hands, or
    whole matches when ``by_match``, from ``first_unit`` on, into ``out[C_*, row]``
    (:data:`N_ROW_COLS_CIRULLA` rows, C-contiguous); return (units done, rows written)."""
    if not out.flags.c_contiguous:  # one compiled signature: 'A' would compile it again
        raise TypeError("fused_rows_cirulla writes into a C-contiguous array only")
    mode = MODE_MATCHES if by_match else MODE_HANDS
    return fused_hands_cirulla(
        rules, policies, seed, first_unit, n_units, mode, np.empty((0, 4), np.int64), out
    )
