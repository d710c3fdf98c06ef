/* Classic backgammon's legal plays on integer arrays: the compiled build's hand-written hot path.
 *
 * A second implementation of engine/movegen.py's search for the rules of engine/variants/
 * classic.py only (RULES 2.3-2.6, 3.1), built with the compiled engine (tools/
 * build_fast_engine.py) and used by engine.movegen.legal_plays when it is there. The Python
 * search is the reference: this one walks the same dice orders and sources in the same order
 * (entries first, then sources from the highest down, doubles in non-increasing source order),
 * so it finds the same plays in the same order with the same realising steps, which
 * tests/engine/test_compiled_parity.py checks byte for byte on every test position and on
 * thousands of random ones. What makes it faster: a board is 52 bytes on the C stack, and
 * Python objects are made only for the plays it returns (the Python search allocates and
 * hashes a position tuple for every node, which took most of its time).
 *
 * classic_leaves(position, numbers, plain_roll) -> list of (steps, after) or None.
 * None means "not for me" (a board outside the bounds below, or a re-entrant call): the
 * caller then runs the Python search.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define POINTS 24
#define BAR 25
#define MAX_STACK 15
#define MAX_LEAVES 4096
#define LEAF_SLOTS 8192 /* open addressing, at most half full */
#define NODE_SLOTS 16384
#define MAX_NODES (NODE_SLOTS / 2)

typedef struct {
    unsigned char x[26]; /* X's checkers: [0] borne off, [1..24] points, [25] bar */
    unsigned char o[25]; /* O's checkers on X's points 1..24 */
    unsigned char o_bar;
} Board;

typedef struct {
    unsigned char src, dst, die, hit;
} Move;

typedef struct {
    Board board;
    Move moves[4];
    int count;
    int high; /* realisable by one step of the higher die (higher-die rule) */
} Leaf;

typedef struct {
    Board board;
    int left;
} Node;

static Leaf leaves[MAX_LEAVES];
static int leaf_count, most_moves, overflow;
static int leaf_slots[LEAF_SLOTS];
static Node nodes[NODE_SLOTS];
static unsigned char node_used[NODE_SLOTS];
static int node_list[MAX_NODES];
static int node_count;
static int high_die;
static int busy;

/* Set by setup(): the Python objects results are made of. */
static PyObject *step_type, *position_type, *x_stacks[MAX_STACK + 1], *o_stacks[MAX_STACK + 1];
static PyObject *empty_stack, *hit_effect, *no_effect;

static unsigned long board_hash(const Board *b) {
    const unsigned char *p = (const unsigned char *)b;
    unsigned long h = 1469598103934665603UL;
    for (size_t i = 0; i < sizeof(Board); i++) {
        h ^= p[i];
        h *= 1099511628211UL;
    }
    return h;
}

/* movegen's record(): a new end position, or a longer or higher-die path to a known one. */
static void record(const Board *b, const Move *path, int count) {
    unsigned long slot = board_hash(b) & (LEAF_SLOTS - 1);
    int uses_high = count == 1 && path[0].die == high_die;
    while (leaf_slots[slot] >= 0) {
        Leaf *leaf = &leaves[leaf_slots[slot]];
        if (memcmp(&leaf->board, b, sizeof(Board)) == 0) {
            if (count > leaf->count) {
                memcpy(leaf->moves, path, (size_t)count * sizeof(Move));
                leaf->count = count;
                leaf->high = uses_high;
            } else if (count == leaf->count && uses_high) {
                leaf->high = 1;
            }
            return;
        }
        slot = (slot + 1) & (LEAF_SLOTS - 1);
    }
    if (leaf_count >= MAX_LEAVES) {
        overflow = 1;
        return;
    }
    Leaf *leaf = &leaves[leaf_count];
    leaf->board = *b;
    memcpy(leaf->moves, path, (size_t)count * sizeof(Move));
    leaf->count = count;
    leaf->high = uses_high;
    leaf_slots[slot] = leaf_count++;
    if (count > most_moves) most_moves = count;
}

/* Whether (board, dice left) is new; a full table only means expanding a node again. */
static int first_visit(const Board *b, int left) {
    unsigned long slot = (board_hash(b) ^ ((unsigned long)left * 0x9E3779B97F4A7C15UL)) & (NODE_SLOTS - 1);
    while (node_used[slot]) {
        if (nodes[slot].left == left && memcmp(&nodes[slot].board, b, sizeof(Board)) == 0) return 0;
        slot = (slot + 1) & (NODE_SLOTS - 1);
    }
    if (node_count >= MAX_NODES) return 1;
    node_used[slot] = 1;
    nodes[slot].board = *b;
    nodes[slot].left = left;
    node_list[node_count++] = (int)slot;
    return 1;
}

/* movegen's walk() with classic's steps(): same dice order, same source order. */
static void walk(const Board *b, const int *left, int left_count, Move *path, int depth, int max_src,
                 int ordered) {
    int moved = 0;
    if (b->x[0] < MAX_STACK && left_count > 0) {
        int choices = (left_count >= 2 && left[1] != left[0]) ? 2 : 1;
        for (int choice = 0; choice < choices; choice++) {
            int die = left[choice];
            int rest[4], rest_count = 0, key = 0;
            for (int i = 0; i < left_count; i++)
                if (i != choice) rest[rest_count++] = left[i];
            for (int i = 0; i < rest_count; i++) key = key * 7 + rest[i];
            key = key * 8 + rest_count;
            int highest = 0;
            for (int p = BAR; p >= 1; p--)
                if (b->x[p]) {
                    highest = p;
                    break;
                }
            int top, bottom;
            if (b->x[BAR]) { /* entering first: nothing else moves while X is on the bar */
                top = max_src == BAR ? BAR : 0;
                bottom = BAR;
            } else {
                top = max_src < highest ? max_src : highest;
                bottom = 1;
            }
            for (int src = top; src >= bottom; src--) {
                if (!b->x[src]) continue;
                int dst = src - die;
                Board next = *b;
                Move move = {(unsigned char)src, 0, (unsigned char)die, 0};
                if (dst >= 1) {
                    if (b->o[dst] >= 2) continue;
                    next.x[src]--;
                    next.x[dst]++;
                    if (b->o[dst] == 1) {
                        next.o[dst] = 0;
                        next.o_bar++;
                        move.hit = 1;
                    }
                    move.dst = (unsigned char)dst;
                } else {
                    if (highest > 6 || (dst < 0 && src != highest)) continue;
                    next.x[src]--;
                    next.x[0]++;
                }
                moved = 1;
                path[depth] = move;
                if (rest_count == 0) {
                    record(&next, path, depth + 1);
                    continue;
                }
                if (!first_visit(&next, key)) continue;
                walk(&next, rest, rest_count, path, depth + 1, ordered ? src : BAR, ordered);
            }
        }
    }
    if (!moved) record(b, path, depth);
}

static PyObject *new_step(const Move *m) {
    PyTypeObject *type = (PyTypeObject *)step_type;
    PyObject *step = type->tp_alloc(type, 4);
    if (step == NULL) return NULL;
    PyObject *src = PyLong_FromLong(m->src), *dst = PyLong_FromLong(m->dst);
    PyObject *die = PyLong_FromLong(m->die);
    PyObject *effect = m->hit ? hit_effect : no_effect;
    Py_INCREF(effect);
    PyTuple_SET_ITEM(step, 0, src);
    PyTuple_SET_ITEM(step, 1, dst);
    PyTuple_SET_ITEM(step, 2, die);
    PyTuple_SET_ITEM(step, 3, effect);
    if (src == NULL || dst == NULL || die == NULL) {
        Py_DECREF(step);
        return NULL;
    }
    return step;
}

/* The position after a leaf, sharing the unchanged fields of the position before. */
static PyObject *new_position(const Leaf *leaf, PyObject *before, long x_off, long o_off) {
    PyObject *points = PyTuple_New(POINTS + 1);
    if (points == NULL) return NULL;
    Py_INCREF(empty_stack);
    PyTuple_SET_ITEM(points, 0, empty_stack);
    for (int p = 1; p <= POINTS; p++) {
        const Board *b = &leaf->board;
        PyObject *stack = b->x[p] ? x_stacks[b->x[p]] : b->o[p] ? o_stacks[b->o[p]] : empty_stack;
        Py_INCREF(stack);
        PyTuple_SET_ITEM(points, p, stack);
    }
    PyObject *bar = Py_BuildValue("(ii)", leaf->board.x[BAR], leaf->board.o_bar);
    PyObject *off;
    if (leaf->board.x[0] == x_off) {
        off = PyTuple_GET_ITEM(before, 4);
        Py_INCREF(off);
    } else {
        off = Py_BuildValue("(il)", leaf->board.x[0], o_off);
    }
    PyTypeObject *type = (PyTypeObject *)position_type;
    PyObject *after = type->tp_alloc(type, 6);
    if (bar == NULL || off == NULL || after == NULL) {
        Py_DECREF(points);
        Py_XDECREF(bar);
        Py_XDECREF(off);
        Py_XDECREF(after);
        return NULL;
    }
    PyObject *variant = PyTuple_GET_ITEM(before, 0), *reserve = PyTuple_GET_ITEM(before, 3);
    PyObject *unlocked = PyTuple_GET_ITEM(before, 5);
    Py_INCREF(variant);
    Py_INCREF(reserve);
    Py_INCREF(unlocked);
    PyTuple_SET_ITEM(after, 0, variant);
    PyTuple_SET_ITEM(after, 1, points);
    PyTuple_SET_ITEM(after, 2, bar);
    PyTuple_SET_ITEM(after, 3, reserve);
    PyTuple_SET_ITEM(after, 4, off);
    PyTuple_SET_ITEM(after, 5, unlocked);
    return after;
}

static int small_int(PyObject *value, long *out) {
    if (!PyLong_CheckExact(value)) return 0;
    *out = PyLong_AsLong(value);
    return *out >= 0 && *out <= MAX_STACK;
}

/* The position into a board; 0 when it is outside what this search handles. */
static int read_position(PyObject *pos, Board *b, long *x_off, long *o_off) {
    memset(b, 0, sizeof(Board));
    if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) != 6) return 0;
    PyObject *points = PyTuple_GET_ITEM(pos, 1), *bar = PyTuple_GET_ITEM(pos, 2);
    PyObject *reserve = PyTuple_GET_ITEM(pos, 3), *off = PyTuple_GET_ITEM(pos, 4);
    if (!PyTuple_Check(points) || PyTuple_GET_SIZE(points) != POINTS + 1) return 0;
    if (!PyTuple_Check(bar) || !PyTuple_Check(reserve) || !PyTuple_Check(off)) return 0;
    if (PyTuple_GET_SIZE(bar) != 2 || PyTuple_GET_SIZE(reserve) != 2 || PyTuple_GET_SIZE(off) != 2)
        return 0;
    for (int p = 1; p <= POINTS; p++) {
        PyObject *stack = PyTuple_GET_ITEM(points, p);
        if (!PyUnicode_Check(stack)) return 0;
        Py_ssize_t length = PyUnicode_GET_LENGTH(stack);
        if (length == 0) continue;
        if (length > MAX_STACK) return 0;
        Py_UCS4 colour = PyUnicode_READ_CHAR(stack, 0);
        for (Py_ssize_t i = 1; i < length; i++)
            if (PyUnicode_READ_CHAR(stack, i) != colour) return 0; /* mixed: not classic */
        if (colour == 'X')
            b->x[p] = (unsigned char)length;
        else if (colour == 'O')
            b->o[p] = (unsigned char)length;
        else
            return 0;
    }
    long x_bar, o_bar, x_res, o_res;
    if (!small_int(PyTuple_GET_ITEM(bar, 0), &x_bar) || !small_int(PyTuple_GET_ITEM(bar, 1), &o_bar))
        return 0;
    if (!small_int(PyTuple_GET_ITEM(reserve, 0), &x_res) ||
        !small_int(PyTuple_GET_ITEM(reserve, 1), &o_res) || x_res || o_res)
        return 0;
    if (!small_int(PyTuple_GET_ITEM(off, 0), x_off) || !small_int(PyTuple_GET_ITEM(off, 1), o_off))
        return 0;
    b->x[BAR] = (unsigned char)x_bar;
    b->o_bar = (unsigned char)o_bar;
    b->x[0] = (unsigned char)*x_off;
    /* At most fifteen X checkers: no point can then grow past MAX_STACK (stacks are indices). */
    int x_total = 0;
    for (int p = 0; p <= BAR; p++) x_total += b->x[p];
    return x_total <= MAX_STACK;
}

static PyObject *build_result(PyObject *pos, int plain_roll, long x_off, long o_off) {
    /* movegen's _select(): the most dice, then the higher die when only one can be played. */
    int only_high = 0;
    if (plain_roll && most_moves == 1)
        for (int i = 0; i < leaf_count; i++)
            if (leaves[i].count == 1 && leaves[i].high) only_high = 1;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (int i = 0; i < leaf_count; i++) {
        const Leaf *leaf = &leaves[i];
        if (leaf->count != most_moves || (only_high && !leaf->high)) continue;
        PyObject *steps = PyTuple_New(leaf->count);
        PyObject *after = new_position(leaf, pos, x_off, o_off);
        if (steps == NULL || after == NULL) goto fail_pair;
        for (int k = 0; k < leaf->count; k++) {
            PyObject *step = new_step(&leaf->moves[k]);
            if (step == NULL) goto fail_pair;
            PyTuple_SET_ITEM(steps, k, step);
        }
        PyObject *pair = PyTuple_Pack(2, steps, after);
        Py_DECREF(steps);
        Py_DECREF(after);
        if (pair == NULL || PyList_Append(out, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(pair);
        continue;
    fail_pair:
        Py_XDECREF(steps);
        Py_XDECREF(after);
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *classic_leaves(PyObject *self, PyObject *args) {
    PyObject *pos, *numbers;
    int plain_roll;
    if (!PyArg_ParseTuple(args, "OO!p", &pos, &PyTuple_Type, &numbers, &plain_roll)) return NULL;
    if (step_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup() was not called");
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(numbers);
    int left[4];
    if (busy || count < 1 || count > 4) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < count; i++) {
        long die;
        if (!small_int(PyTuple_GET_ITEM(numbers, i), &die) || die < 1 || die > 6) Py_RETURN_NONE;
        left[i] = (int)die;
    }
    Board board;
    long x_off, o_off;
    if (!read_position(pos, &board, &x_off, &o_off)) Py_RETURN_NONE;
    busy = 1; /* the tables are shared: building the result may run Python code (a GC callback) */
    high_die = left[0];
    for (int i = 1; i < count; i++)
        if (left[i] > high_die) high_die = left[i];
    leaf_count = most_moves = overflow = 0;
    memset(leaf_slots, -1, sizeof(leaf_slots));
    for (int i = 0; i < node_count; i++) node_used[node_list[i]] = 0;
    node_count = 0;
    Move path[4];
    int ordered = count > 1 && left[0] == left[count - 1]; /* doubles: steps commute in classic */
    walk(&board, left, (int)count, path, 0, BAR, ordered);
    PyObject *out = overflow ? (Py_INCREF(Py_None), Py_None) : build_result(pos, plain_roll, x_off, o_off);
    busy = 0;
    return out;
}

/* setup(Step, Position, x_stacks, o_stacks, empty, hit, none): the types and the interned
   strings results are made of (X's stacks "", "X", ..., 16 of them; O's likewise). */
static PyObject *setup(PyObject *self, PyObject *args) {
    PyObject *step, *position, *xs, *os, *empty, *hit, *none;
    if (!PyArg_ParseTuple(args, "O!O!O!O!UUU", &PyType_Type, &step, &PyType_Type, &position,
                          &PyTuple_Type, &xs, &PyTuple_Type, &os, &empty, &hit, &none))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)step, &PyTuple_Type) ||
        !PyType_IsSubtype((PyTypeObject *)position, &PyTuple_Type) ||
        PyTuple_GET_SIZE(xs) != MAX_STACK + 1 || PyTuple_GET_SIZE(os) != MAX_STACK + 1) {
        PyErr_SetString(PyExc_TypeError, "setup: tuple types and 16 stacks of each colour");
        return NULL;
    }
    Py_INCREF(step);
    Py_INCREF(position);
    Py_INCREF(empty);
    Py_INCREF(hit);
    Py_INCREF(none);
    step_type = step;
    position_type = position;
    empty_stack = empty;
    hit_effect = hit;
    no_effect = none;
    for (int i = 0; i <= MAX_STACK; i++) {
        x_stacks[i] = PyTuple_GET_ITEM(xs, i);
        o_stacks[i] = PyTuple_GET_ITEM(os, i);
        Py_INCREF(x_stacks[i]);
        Py_INCREF(o_stacks[i]);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"classic_leaves", classic_leaves, METH_VARARGS, "Classic's legal plays: [(steps, after)] or None."},
    {"setup", setup, METH_VARARGS, "The types and strings the results are made of."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "engine._classic_kernel", NULL, -1, methods};

PyMODINIT_FUNC PyInit__classic_kernel(void) { return PyModule_Create(&module); }
