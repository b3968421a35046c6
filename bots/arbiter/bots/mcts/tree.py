"""The search tree as a preallocated node arena, and the UCT / MCTS-Solver kernels that grow it.

Every node is an index into parallel numpy arrays (``parent``, ``first_child``, ``next_sibling``,
``action``, ``mover``, ``visits``, ``mean``, ``proven`` …), so a search of millions of nodes
allocates nothing per node and the whole loop — selection, expansion, simulation,
backpropagation — runs in one numba call with no Python per simulation. Node 0 is always the root.

Values are kept from the point of view of each node's *mover*, the player who chose the action
leading into it, read from the state's ``TO_MOVE`` before the action: in paper soccer a player
makes several actions in a row, so two consecutive nodes may belong to the same player and the
sign cannot simply alternate with depth. The root's mover is the side to move at the root.

Selection is UCB1 (UCT) with a tunable exploration constant. The source's selection of the child
with the most wins, with no exploration term, is a known flaw: a move that lost its first few
playouts is never tried again, however good it is.

MCTS-Solver (Winands, Björnsson & Saito 2008), extended to draws: a terminal node is *proven*
(a win, draw or loss for its mover); a node is proven as soon as one child is a proven win for the
player to move there, or when every child is proven (its value is then the best of them).
Selection skips children proven lost, a simulation that reaches a proven node returns its exact
result without a playout, and the search stops as soon as the root is proven.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from arbiter.engine import State, ops
from arbiter.engine.base import STATUS, STATUS_DRAW, STATUS_ONGOING, STATUS_WIN0, TO_MOVE
from arbiter.engine.borrow import borrow

from .policy import light_playout, scratch_size

NO_NODE = -1

# Proven values, for the node's mover; ordered so that max() picks the best.
UNKNOWN = 0
LOSS = 1
DRAW = 2
WIN = 3
PROVEN_NAMES = {UNKNOWN: "unknown", LOSS: "loss", DRAW: "draw", WIN: "win"}

# Why a search call returned.
DONE = 0  # the requested simulations ran
PROVEN = 1  # the root is proven: more simulations would not change the choice
FULL = 2  # the arena is full and may grow: grow it and call again

# Playout policies.
POLICY_RANDOM = 0  # uniformly random actions (ops.playout): the speed baseline
POLICY_LIGHT = 1  # policy.light_playout: win at once, block, otherwise random

# Slots of the counters array shared by the kernels and the Tree.
USED = 0  # nodes in use
TURN_KEPT = 1  # expansions after which the same player was still to move (paper soccer bounces)
COUNTERS = 2

INITIAL_CAPACITY = 1 << 14
GATHERED = 0  # ORDER_STRIDE of a node whose children sit in consecutive slots, in sibling order
GATHER_MIN = 12  # nodes with fewer legal actions keep their linked children: few lines to read,
# and no slots left behind (a paper soccer node has at most 8 children)


# The node arrays, by position in the tuple the kernels take (constant indices compile to a field).
PARENT = 0
FIRST_CHILD = 1
NEXT_SIBLING = 2
ACTION = 3  # the action from the parent into the node
MOVER = 4  # the player who played that action
N_LEGAL = 5  # legal actions at the node, -1 until first needed
N_CHILDREN = 6  # children expanded so far
ORDER_START = 7  # children are expanded in an affine permutation of the legal list,
ORDER_STRIDE = 8  # random per node: legal[(start + i * stride) % n_legal]; GATHERED (0) once the
# node is fully expanded and its children were moved into consecutive slots (see gather_children)
VISITS = 9
MEAN = 10  # mean reward for the mover: win 1, draw 0.5, loss 0
SPREAD = 11  # 1 / sqrt(visits), kept so that selection needs no square root per child
PROVEN = 12  # UNKNOWN, LOSS, DRAW or WIN for the mover
FIELD_TYPES = (
    np.int32,
    np.int32,
    np.int32,
    np.int32,
    np.int8,
    np.int32,
    np.int32,
    np.int32,
    np.int32,
    np.int64,
    np.float64,
    np.float64,
    np.int8,
)


def allocate(capacity: int) -> tuple[np.ndarray, ...]:
    """Empty node arrays for ``capacity`` nodes, in the order of the field constants above."""
    return tuple(np.empty(capacity, dtype=dtype) for dtype in FIELD_TYPES)


@njit(cache=True)
def init_node(nodes, node, parent_node, action_taken, who):
    nodes[PARENT][node] = parent_node
    nodes[FIRST_CHILD][node] = NO_NODE
    nodes[NEXT_SIBLING][node] = NO_NODE
    nodes[ACTION][node] = action_taken
    nodes[MOVER][node] = who
    nodes[N_LEGAL][node] = -1
    nodes[N_CHILDREN][node] = 0
    nodes[VISITS][node] = 0
    nodes[MEAN][node] = 0.0
    nodes[SPREAD][node] = 1.0
    nodes[PROVEN][node] = UNKNOWN


@njit(cache=True)
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def _choose_order(nodes, node, count):
    """A random affine permutation of ``range(count)`` for expanding the node's children.

    Legal lists come in a fixed order (row-major cells, directions): expanding in that order would
    make a search cut short by the clock look only at the first cells of every wide node.
    """
    order_start, order_stride = nodes[ORDER_START], nodes[ORDER_STRIDE]
    if count <= 1:
        order_start[node] = 0
        order_stride[node] = 1
        return
    stride = np.random.randint(1, count)
    while _gcd(stride, count) != 1:
        stride = np.random.randint(1, count)
    order_start[node] = np.random.randint(0, count)
    order_stride[node] = stride


@njit(cache=True)
def status_value(status, who):
    """A finished game's status as a proven value for player ``who``."""
    if status == STATUS_DRAW:
        return DRAW
    return WIN if status - STATUS_WIN0 == who else LOSS


@njit(cache=True)
def proven_status(proven_value, who):
    """The final status a proven value for player ``who`` stands for."""
    if proven_value == DRAW:
        return STATUS_DRAW
    if proven_value == WIN:
        return STATUS_WIN0 + who
    return STATUS_WIN0 + 1 - who


@njit(cache=True)
def flip(proven_value):
    """The same proven result seen by the other player (a draw stays a draw)."""
    if proven_value == UNKNOWN:
        return UNKNOWN
    return WIN + LOSS - proven_value


@njit(cache=True)
def propagate_proof(nodes, node):
    """Carry a new proof at ``node`` up the tree as far as it decides its ancestors."""
    parent, first_child, next_sibling = nodes[PARENT], nodes[FIRST_CHILD], nodes[NEXT_SIBLING]
    mover, n_legal, n_children, proven = nodes[MOVER], nodes[N_LEGAL], nodes[N_CHILDREN], nodes[PROVEN]
    child = node
    while parent[child] != NO_NODE:
        up = parent[child]
        if proven[up] != UNKNOWN:
            return
        side = mover[child]  # the player to move at ``up``: every child of ``up`` has this mover
        if proven[child] == WIN:
            best = WIN
        elif n_children[up] == n_legal[up]:
            best = LOSS
            sibling = first_child[up]
            while sibling != NO_NODE:
                if proven[sibling] == UNKNOWN:
                    return
                best = max(best, proven[sibling])
                sibling = next_sibling[sibling]
        else:
            return
        proven[up] = best if mover[up] == side else flip(best)
        child = up


@njit(cache=True)
def gather_children(nodes, node, counters):
    """Move the children of a fully expanded ``node`` into consecutive new slots, in sibling order.

    Children are created one per visit, so a wide node's children lie scattered over the arena,
    each in another cache line: selection, which reads every child's statistics, would chase the
    sibling links through memory. Once the node is fully expanded its children never change, and
    a single copy (they are still leaves then, unless the tree was re-rooted) puts them side by
    side: selection then runs down consecutive slots. The old slots stay unused until the tree is
    compacted at the next re-rooting. The caller checks there is room for ``n_legal`` slots.
    """
    parent, first_child, next_sibling = nodes[PARENT], nodes[FIRST_CHILD], nodes[NEXT_SIBLING]
    start = counters[USED]
    new = start
    child = first_child[node]
    while child != NO_NODE:
        _copy_fields(nodes, nodes, child, new)
        parent[new] = node
        first_child[new] = first_child[child]
        next_sibling[new] = new + 1
        grandchild = first_child[child]
        while grandchild != NO_NODE:
            parent[grandchild] = new
            grandchild = next_sibling[grandchild]
        new += 1
        child = next_sibling[child]
    next_sibling[new - 1] = NO_NODE
    first_child[node] = start
    counters[USED] = new
    nodes[ORDER_STRIDE][node] = GATHERED


@njit(cache=True)
def select_child(nodes, node, exploration):
    """The child maximising UCB1, skipping children proven lost (the first child if all are)."""
    first_child, next_sibling, mean, spread, proven = (
        nodes[FIRST_CHILD],
        nodes[NEXT_SIBLING],
        nodes[MEAN],
        nodes[SPREAD],
        nodes[PROVEN],
    )
    weight = exploration * math.sqrt(math.log(nodes[VISITS][node]))
    best = first_child[node]
    best_score = -np.inf
    if nodes[ORDER_STRIDE][node] == GATHERED:  # consecutive slots: no links to follow
        for child in range(best, best + nodes[N_CHILDREN][node]):
            if proven[child] != LOSS:
                score = mean[child] + weight * spread[child]
                if score > best_score:
                    best_score = score
                    best = child
        return best
    child = first_child[node]
    while child != NO_NODE:
        if proven[child] != LOSS:
            score = mean[child] + weight * spread[child]
            if score > best_score:
                best_score = score
                best = child
        child = next_sibling[child]
    return best


@njit(cache=True)
def backpropagate(nodes, node, status):
    """Add one visit and its reward (win 1, draw 0.5, loss 0 for each node's mover) up to the root."""
    parent, mover, visits, mean, spread = nodes[PARENT], nodes[MOVER], nodes[VISITS], nodes[MEAN], nodes[SPREAD]
    winner = status - STATUS_WIN0
    while node != NO_NODE:
        visits[node] += 1
        n = visits[node]
        reward = 0.5 if status == STATUS_DRAW else (1.0 if mover[node] == winner else 0.0)
        mean[node] += (reward - mean[node]) / n
        spread[node] = 1.0 / math.sqrt(n)
        node = parent[node]


@njit(cache=True)
def rollout(gid, p, s, actions, scratch, policy):
    if policy == POLICY_LIGHT:
        return light_playout(gid, p, s, scratch)
    return ops.playout(gid, p, s, actions)


@njit(cache=True)
def search(
    gid, p, root_state, simulations, exploration, solver, policy, can_grow, nodes, counters, work, actions, scratch
):
    """Run up to ``simulations`` MCTS simulations from ``root_state`` into the tree.

    Returns ``(done, why)``: ``why`` is DONE, PROVEN (the solver proved the root) or FULL (the
    arena is full and ``can_grow``: the caller grows it and calls again; without ``can_grow`` a
    full arena stops expanding and simulations go on from the leaves).
    ``work``, ``actions`` and ``scratch`` are buffers: a state copy, the legal list, the policy's.
    """
    # no reference counting in the calls below (arbiter.engine.borrow)
    p, root_state, nodes, counters = borrow(p), borrow(root_state), borrow(nodes), borrow(counters)
    work, actions, scratch = borrow(work), borrow(actions), borrow(scratch)
    first_child, next_sibling, action, mover = nodes[FIRST_CHILD], nodes[NEXT_SIBLING], nodes[ACTION], nodes[MOVER]
    n_legal, n_children, proven = nodes[N_LEGAL], nodes[N_CHILDREN], nodes[PROVEN]
    order_start, order_stride = nodes[ORDER_START], nodes[ORDER_STRIDE]
    capacity = first_child.shape[0]
    for done in range(simulations):
        if solver and proven[0] != UNKNOWN:
            return done, PROVEN
        work[:] = root_state
        node = 0
        while True:
            if work[STATUS] != STATUS_ONGOING:
                status = work[STATUS]
                break
            if solver and node != 0 and proven[node] != UNKNOWN:
                status = proven_status(proven[node], mover[node])
                break
            if n_children[node] < n_legal[node] or n_legal[node] < 0:
                count = ops.legal(gid, p, work, actions)
                if n_legal[node] < 0:
                    n_legal[node] = count
                    _choose_order(nodes, node, count)
                if counters[USED] >= capacity:
                    if can_grow:
                        return done, FULL
                    status = rollout(gid, p, work, actions, scratch, policy)
                    break
                chosen = actions[(order_start[node] + n_children[node] * order_stride[node]) % count]
                child = counters[USED]
                counters[USED] += 1
                player = work[TO_MOVE]
                init_node(nodes, child, node, chosen, player)
                next_sibling[child] = first_child[node]
                first_child[node] = child
                n_children[node] += 1
                ops.play(gid, p, work, chosen)
                node = child
                if work[STATUS] != STATUS_ONGOING:
                    status = work[STATUS]
                    if solver:
                        proven[child] = status_value(status, player)
                        propagate_proof(nodes, child)
                else:
                    if work[TO_MOVE] == player:
                        counters[TURN_KEPT] += 1
                    status = rollout(gid, p, work, actions, scratch, policy)
                break
            wide = n_legal[node] >= GATHER_MIN
            if wide and order_stride[node] != GATHERED and counters[USED] + n_legal[node] <= capacity:
                gather_children(nodes, node, counters)
            node = select_child(nodes, node, exploration)
            ops.play(gid, p, work, action[node])
        backpropagate(nodes, node, status)
    return simulations, DONE


@njit(cache=True)
def _copy_fields(source, target, old, new):
    """Copy every field of a node but its links."""
    target[ACTION][new] = source[ACTION][old]
    target[MOVER][new] = source[MOVER][old]
    target[N_LEGAL][new] = source[N_LEGAL][old]
    target[N_CHILDREN][new] = source[N_CHILDREN][old]
    target[ORDER_START][new] = source[ORDER_START][old]
    target[ORDER_STRIDE][new] = source[ORDER_STRIDE][old]
    target[VISITS][new] = source[VISITS][old]
    target[MEAN][new] = source[MEAN][old]
    target[SPREAD][new] = source[SPREAD][old]
    target[PROVEN][new] = source[PROVEN][old]


@njit(cache=True)
def compact(source, target, new_root):
    """Copy the subtree under ``new_root`` into ``target`` (breadth-first, root at 0); return its size.

    This is how the tree is kept between moves: the branches the game did not take are dropped
    (with the slots gather_children left behind) and the arena does not fill up over a long match.
    Every node's children come out in consecutive slots, so fully expanded nodes count as gathered.
    """
    s_first, s_next = source[FIRST_CHILD], source[NEXT_SIBLING]
    t_parent, t_first, t_next = target[PARENT], target[FIRST_CHILD], target[NEXT_SIBLING]
    origin = np.empty(s_first.shape[0], dtype=np.int32)
    origin[0] = new_root
    t_parent[0] = NO_NODE
    t_next[0] = NO_NODE
    filled = 1
    head = 0
    while head < filled:
        old = origin[head]
        _copy_fields(source, target, old, head)
        if target[N_CHILDREN][head] == target[N_LEGAL][head] > 1:  # its children come out consecutive
            target[ORDER_STRIDE][head] = GATHERED
        t_first[head] = NO_NODE
        previous = NO_NODE
        child = s_first[old]
        while child != NO_NODE:
            origin[filled] = child
            t_parent[filled] = head
            t_next[filled] = NO_NODE
            if previous == NO_NODE:
                t_first[head] = filled
            else:
                t_next[previous] = filled
            previous = filled
            filled += 1
            child = s_next[child]
        head += 1
    return filled


@njit(cache=True)
def seed_random(seed):
    """Seed the random numbers of every kernel in this process (numba keeps its own generator)."""
    np.random.seed(seed)


@dataclass(frozen=True)
class ChildStats:
    """One child of the root: the action into it and what the search learned about it."""

    action: int
    visits: int
    value: float  # summed rewards for the player to move at the root (win 1, draw 0.5)
    proven: int  # UNKNOWN, LOSS, DRAW or WIN for the player to move at the root

    @property
    def mean(self) -> float:
        return self.value / self.visits if self.visits else 0.0


def best_child(children: Sequence[ChildStats], *, settled: bool = False) -> ChildStats:
    """The move to play: a proven win if there is one, else the most visited child not proven
    lost (all of them if every child is lost), ties to the higher mean.

    Visits, not the mean, decide: a child with few visits may have a high mean by luck, while the
    search spends its visits on the children it keeps finding best. Once the root is ``settled``
    (proven: every child's exact value is known) visits say nothing more, and among the children
    of the best value the one with the highest mean is taken: against a fallible opponent it is
    the draw most likely to become a win, or the loss most likely to be saved.
    """
    if not children:
        raise ValueError("the root has no children yet: run at least one simulation")
    wins = [c for c in children if c.proven == WIN]
    candidates = wins or [c for c in children if c.proven != LOSS] or list(children)
    if settled and not wins:
        return max(candidates, key=lambda c: (c.mean, c.visits))
    return max(candidates, key=lambda c: (c.visits, c.mean))


class Tree:
    """A node arena grown by MCTS from one root position, kept and re-rooted between moves.

    The arena starts small and doubles (up to ``max_nodes``) when a search fills it; re-rooting
    copies only the subtree that is still reachable into a fresh arena sized to it.
    """

    def __init__(self, position: State, *, max_nodes: int, capacity: int = INITIAL_CAPACITY) -> None:
        if max_nodes < 2:
            raise ValueError(f"max_nodes must be at least 2, not {max_nodes}")
        game = position.game
        self.position = position.copy()
        self.max_nodes = max_nodes
        self.counters = np.zeros(COUNTERS, dtype=np.int64)
        self.nodes = allocate(min(capacity, max_nodes))
        self._reset_root()
        self._work = np.empty_like(self.position.s)
        self._actions = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
        self._scratch = np.empty(scratch_size(game), dtype=np.int64)

    # --- reading ------------------------------------------------------------------------------
    @property
    def used(self) -> int:
        return int(self.counters[USED])

    @property
    def capacity(self) -> int:
        return int(self.nodes[PARENT].shape[0])

    @property
    def root_visits(self) -> int:
        return int(self.nodes[VISITS][0])

    @property
    def root_proven(self) -> int:
        """The root's proven value for the player to move there (UNKNOWN until the solver knows)."""
        return int(self.nodes[PROVEN][0])

    @property
    def turns_continue(self) -> bool:
        """Whether the search has seen a player keep the turn after an action (paper soccer)."""
        return bool(self.counters[TURN_KEPT])

    def children(self) -> list[ChildStats]:
        """Statistics of the root's children, for the player to move at the root."""
        first_child, next_sibling, action = self.nodes[FIRST_CHILD], self.nodes[NEXT_SIBLING], self.nodes[ACTION]
        visits, mean, proven = self.nodes[VISITS], self.nodes[MEAN], self.nodes[PROVEN]
        out = []
        child = int(first_child[0])
        while child != NO_NODE:
            n = int(visits[child])
            out.append(ChildStats(int(action[child]), n, float(mean[child]) * n, int(proven[child])))
            child = int(next_sibling[child])
        return out

    # --- growing ------------------------------------------------------------------------------
    def search(self, simulations: int, *, exploration: float, solver: bool, policy: int) -> tuple[int, int]:
        """Run up to ``simulations`` simulations; return (simulations run, DONE or PROVEN)."""
        game = self.position.game
        total = 0
        while True:
            done, why = search(
                game.gid,
                game.param_array,
                self.position.s,
                simulations - total,
                float(exploration),
                bool(solver),
                int(policy),
                self.capacity < self.max_nodes,
                self.nodes,
                self.counters,
                self._work,
                self._actions,
                self._scratch,
            )
            total += int(done)
            if why != FULL:
                return total, int(why)
            self._resize(min(2 * self.capacity, self.max_nodes))

    def advance(self, action: int) -> bool:
        """Make the position after ``action`` the root; True when its subtree was kept.

        An action the search never expanded starts a fresh tree from the new position.
        """
        child = self._child(action)
        self.position.play_action(action)
        if child == NO_NODE:
            self._reset_root()
            return False
        capacity = min(self.max_nodes, max(INITIAL_CAPACITY, 2 * self._subtree_size(child)))
        target = allocate(capacity)
        self.counters[USED] = compact(self.nodes, target, child)
        self.nodes = target
        mover, proven = self.nodes[MOVER], self.nodes[PROVEN]
        if mover[0] != self.position.to_move:  # the root's values are kept for the side to move there
            proven[0] = flip(proven[0])
            mover[0] = self.position.to_move
        return True

    def _child(self, action: int) -> int:
        first_child, next_sibling, actions = self.nodes[FIRST_CHILD], self.nodes[NEXT_SIBLING], self.nodes[ACTION]
        child = int(first_child[0])
        while child != NO_NODE and actions[child] != action:
            child = int(next_sibling[child])
        return child

    def _subtree_size(self, node: int) -> int:
        return int(subtree_size(self.nodes, node))

    def _reset_root(self) -> None:
        init_node(self.nodes, 0, NO_NODE, -1, self.position.to_move)
        self.counters[:] = 0
        self.counters[USED] = 1

    def _resize(self, capacity: int) -> None:
        used = self.used
        grown = allocate(capacity)
        for old, new in zip(self.nodes, grown, strict=True):
            new[:used] = old[:used]
        self.nodes = grown


@njit(cache=True)
def subtree_size(nodes, node):
    """Nodes in the subtree under ``node`` (iterative: an explicit stack)."""
    first_child, next_sibling = nodes[FIRST_CHILD], nodes[NEXT_SIBLING]
    stack = np.empty(64, dtype=np.int32)
    stack[0] = node
    top = 1
    count = 0
    while top > 0:
        top -= 1
        current = stack[top]
        count += 1
        child = first_child[current]
        while child != NO_NODE:
            if top == stack.shape[0]:
                bigger = np.empty(2 * top, dtype=np.int32)
                bigger[:top] = stack
                stack = bigger
            stack[top] = child
            top += 1
            child = next_sibling[child]
    return count
