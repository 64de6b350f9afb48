/* The styled-run loop of the terminal model, in C.
 *
 * ``StyledRuns._draw_styled`` (styled.py) splits a run of single-width text,
 * SGR, CUP and EL sequences on "ESC [" and walks the pieces.  Most pieces
 * take one of three shapes whose effect is a dict lookup and, for text, two
 * row writes: an SGR seen before in the current rendition, a CUP seen before,
 * "<SGR params>m<text>" whose text fits on the line over clean cell
 * boundaries, and an EL ("K", "0K", "1K", "2K") with no text after it.
 * ``draw_pieces`` performs those, with the same lookups and writes as the
 * Python loop, and returns at the first piece of any other
 * shape -- unchanged, for the Python code to perform.  So the C code holds no
 * terminal semantics of its own: everything it does, the Python loop does
 * the same way (tests/terminal/test_accel.py compares the two on random
 * streams), and the model is whole without it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *CELL_KEY;  /* sgr_graph.CELL: a node's 1-tuple of its Attr */
static PyObject *ERASE_KEY; /* sgr_graph.ERASE: the Attr an erase in it blanks with */
static PyObject *BLANK;     /* " ", a blank cell */

/* A piece this loop does not perform: stop before it. */
#define STOP goto done

static int
row_of(PyObject *rows, Py_ssize_t y, Py_ssize_t need, PyObject **out)
{
    if (y < 0 || y >= PyList_GET_SIZE(rows))
        return 0;
    PyObject *row = PyList_GET_ITEM(rows, y);
    if (!PyList_CheckExact(row) || PyList_GET_SIZE(row) < need)
        return 0;
    *out = row;
    return 1;
}

static int
is_placeholder(PyObject *cell)
{
    /* "" marks the right half of a wide character: writing next to one
       needs the boundary healed, which the Python code does. */
    return !PyUnicode_CheckExact(cell) || PyUnicode_GET_LENGTH(cell) == 0;
}

/* Write ``n`` characters of ``text`` from ``start`` into ``row[x:x+n]`` and
   ``attr`` into ``arow[x:x+n]`` (both already checked to hold them). */
static int
write_cells(PyObject *row, PyObject *arow, Py_ssize_t x, PyObject *text, Py_ssize_t start,
            Py_ssize_t n, PyObject *attr)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t j = 0; j < n; j++) {
        /* One-character strings below U+0100 are shared singletons, as
           the slice assignment of a str makes them. */
        PyObject *ch = PyUnicode_FromOrdinal(PyUnicode_READ(kind, data, start + j));
        if (ch == NULL)
            return -1;
        PyObject *old = PyList_GET_ITEM(row, x + j);
        PyList_SET_ITEM(row, x + j, ch);
        Py_DECREF(old);
        Py_INCREF(attr);
        old = PyList_GET_ITEM(arow, x + j);
        PyList_SET_ITEM(arow, x + j, attr);
        Py_DECREF(old);
    }
    return 0;
}

static int
mark_touched(PyObject *touched, Py_ssize_t y)
{
    PyObject *key = PyLong_FromSsize_t(y);
    if (key == NULL)
        return -1;
    int rc = PySet_Add(touched, key);
    Py_DECREF(key);
    return rc;
}

/* EL at column ``a`` (the cursor, at most ``cols``) of ``row``/``arow``, as
   EraseOps._blank does it: cells [lo, hi) become " " in ``erase``; a row
   cleared whole no longer wraps. */
static int
erase_line(Py_UCS4 mode, Py_ssize_t a, Py_ssize_t cols, PyObject *row, PyObject *arow,
           PyObject *erase, PyObject *wrapped, Py_ssize_t y, PyObject *touched)
{
    Py_ssize_t lo = 0, hi = cols;
    if (mode == '0')
        lo = a;
    else if (mode == '1')
        hi = a < cols ? a + 1 : cols;
    if (lo >= hi)
        return 0;
    for (Py_ssize_t j = lo; j < hi; j++) {
        Py_INCREF(BLANK);
        PyObject *old = PyList_GET_ITEM(row, j);
        PyList_SET_ITEM(row, j, BLANK);
        Py_DECREF(old);
        Py_INCREF(erase);
        old = PyList_GET_ITEM(arow, j);
        PyList_SET_ITEM(arow, j, erase);
        Py_DECREF(old);
    }
    if (lo == 0 && hi >= PyList_GET_SIZE(row) && PyList_SetItem(wrapped, y, Py_NewRef(Py_False)) < 0)
        return -1;
    return mark_touched(touched, y);
}

/* draw_pieces(pieces, k, node, cups, chars, attrs, wrapped, touched, y, x, cols, lim, wrap_at)
       -> (k, y, x, node)
   Performs pieces[k:] while they take the shapes above; returns the index of
   the first piece it did not perform (len(pieces) when none is left) and the
   cursor and rendition node after the ones it did. */
static PyObject *
draw_pieces(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "draw_pieces takes 13 arguments");
        return NULL;
    }
    PyObject *pieces = args[0], *node = args[2], *cups = args[3];
    PyObject *chars = args[4], *attrs = args[5], *wrapped = args[6], *touched = args[7];
    if (!PyList_CheckExact(pieces) || !PyDict_CheckExact(node) || !PyDict_CheckExact(cups) ||
        !PyList_CheckExact(chars) || !PyList_CheckExact(attrs) || !PyList_CheckExact(wrapped) ||
        !PySet_CheckExact(touched)) {
        PyErr_SetString(PyExc_TypeError, "draw_pieces: unexpected argument types");
        return NULL;
    }
    Py_ssize_t k = PyLong_AsSsize_t(args[1]);
    Py_ssize_t y = PyLong_AsSsize_t(args[8]);
    Py_ssize_t x = PyLong_AsSsize_t(args[9]);
    Py_ssize_t cols = PyLong_AsSsize_t(args[10]);
    Py_ssize_t lim = PyLong_AsSsize_t(args[11]);
    Py_ssize_t wrap_at = PyLong_AsSsize_t(args[12]);
    if (PyErr_Occurred())
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(pieces);
    for (; k < count; k++) {
        PyObject *p = PyList_GET_ITEM(pieces, k);
        if (!PyUnicode_CheckExact(p))
            STOP;
        Py_ssize_t len = PyUnicode_GET_LENGTH(p);
        if (len == 0)
            STOP;
        Py_UCS4 final = PyUnicode_READ_CHAR(p, len - 1);
        if (final == 'm') {
            PyObject *nxt = PyDict_GetItemWithError(node, p);
            if (nxt != NULL) {
                node = nxt; /* an SGR seen before in this rendition */
                continue;
            }
            if (PyErr_Occurred())
                return NULL;
        }
        else if (final == 'H') {
            PyObject *pos = PyDict_GetItemWithError(cups, p);
            if (pos != NULL) {
                if (!PyTuple_CheckExact(pos) || PyTuple_GET_SIZE(pos) != 2)
                    STOP;
                Py_ssize_t ny = PyLong_AsSsize_t(PyTuple_GET_ITEM(pos, 0));
                Py_ssize_t nx = PyLong_AsSsize_t(PyTuple_GET_ITEM(pos, 1));
                if (PyErr_Occurred())
                    return NULL;
                y = ny; /* a CUP seen before */
                x = nx;
                continue;
            }
            if (PyErr_Occurred())
                return NULL;
        }
        else if (final == 'K') {
            /* Only the forms with no text after them, in locals like the
               Python code: outside origin, graphics and insert modes. */
            Py_UCS4 mode = len == 2 ? PyUnicode_READ_CHAR(p, 0) : '0';
            if (len > 2 || (mode != '0' && mode != '1' && mode != '2') || lim < 0 || x < 0 ||
                y >= PyList_GET_SIZE(wrapped))
                STOP;
            PyObject *erase = PyDict_GetItemWithError(node, ERASE_KEY);
            PyObject *row, *arow;
            if (erase == NULL) {
                if (PyErr_Occurred())
                    return NULL;
                STOP; /* the Python code stores it in the node */
            }
            if (!row_of(chars, y, cols, &row) || !row_of(attrs, y, cols, &arow))
                STOP;
            if (erase_line(mode, x < cols ? x : cols, cols, row, arow, erase, wrapped, y,
                           touched) < 0)
                return NULL;
            continue;
        }
        /* "<params>m<text>": the first "m" ends an SGR. */
        Py_ssize_t m = PyUnicode_FindChar(p, 'm', 0, len, 1);
        if (m == -2)
            return NULL;
        if (m < 0 || m == len - 1)
            STOP; /* no SGR, or one with no text (the Python code links it) */
        PyObject *params = PyUnicode_Substring(p, 0, m);
        if (params == NULL)
            return NULL;
        PyObject *nxt = PyDict_GetItemWithError(node, params);
        Py_DECREF(params);
        if (nxt == NULL) {
            if (PyErr_Occurred())
                return NULL;
            STOP; /* a new transition, or another sequence */
        }
        Py_ssize_t n = len - m - 1;
        Py_ssize_t end = x + n;
        if (end > lim || x < 0)
            STOP; /* wraps, or the general drawing code is needed */
        PyObject *row, *arow;
        if (!row_of(chars, y, cols, &row) || !row_of(attrs, y, cols, &arow))
            STOP;
        if (is_placeholder(PyList_GET_ITEM(row, x)) ||
            (end < cols && is_placeholder(PyList_GET_ITEM(row, end))))
            STOP; /* a wide character's boundary to heal */
        PyObject *cell = PyDict_GetItemWithError(nxt, CELL_KEY);
        if (cell == NULL || !PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 1) {
            if (PyErr_Occurred())
                return NULL;
            STOP;
        }
        if (write_cells(row, arow, x, p, m + 1, n, PyTuple_GET_ITEM(cell, 0)) < 0 ||
            mark_touched(touched, y) < 0)
            return NULL;
        node = nxt;
        x = end < wrap_at ? end : end - 1;
    }
done:
    return Py_BuildValue("nnnO", k, y, x, node);
}

/* cells_of(nodes, texts) -> list
   One Attr per character: nodes[i]'s (its CELL tuple's item) for each
   character of texts[i], concatenated -- what styled.py builds with
   ``reduce(iadd, map(mul, map(cell_of, nodes), map(len, texts)), [])``. */
static PyObject *
cells_of(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1]) ||
        PyList_GET_SIZE(args[0]) < PyList_GET_SIZE(args[1])) {
        PyErr_SetString(PyExc_TypeError, "cells_of(nodes: list, texts: list)");
        return NULL;
    }
    PyObject *nodes = args[0], *texts = args[1];
    Py_ssize_t count = PyList_GET_SIZE(texts), total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *t = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "cells_of: a text is not a str");
            return NULL;
        }
        total += PyUnicode_GET_LENGTH(t);
    }
    PyObject *out = PyList_New(total);
    if (out == NULL)
        return NULL;
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(PyList_GET_ITEM(texts, i));
        if (n == 0)
            continue;
        PyObject *node = PyList_GET_ITEM(nodes, i);
        PyObject *cell = PyDict_Check(node) ? PyDict_GetItemWithError(node, CELL_KEY) : NULL;
        if (cell == NULL || !PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 1) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "cells_of: a node without its cell");
            /* the cells not written yet are NULL: fill them before freeing */
            for (; at < total; at++)
                PyList_SET_ITEM(out, at, Py_NewRef(Py_None));
            Py_DECREF(out);
            return NULL;
        }
        PyObject *attr = PyTuple_GET_ITEM(cell, 0);
        for (Py_ssize_t j = 0; j < n; j++)
            PyList_SET_ITEM(out, at++, Py_NewRef(attr));
    }
    return out;
}

static int
append_slice(PyObject *out, PyObject *text, Py_ssize_t a, Py_ssize_t b)
{
    PyObject *part = PyUnicode_Substring(text, a, b);
    if (part == NULL)
        return -1;
    int rc = PyList_Append(out, part);
    Py_DECREF(part);
    return rc;
}

/* split_sgr(block) -> list | None
   ``re.split(r"\x1b\[([0-9;:]*)m", block)`` for a block made of text and
   such SGR sequences only: [text, params, text, ..., text]; None when an
   ESC in it starts anything else (the caller then uses the expression). */
static PyObject *
split_sgr(PyObject *Py_UNUSED(self), PyObject *block)
{
    if (!PyUnicode_Check(block)) {
        PyErr_SetString(PyExc_TypeError, "split_sgr(block: str)");
        return NULL;
    }
    Py_ssize_t len = PyUnicode_GET_LENGTH(block), pos = 0;
    int kind = PyUnicode_KIND(block);
    const void *data = PyUnicode_DATA(block);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (;;) {
        Py_ssize_t esc = PyUnicode_FindChar(block, 0x1b, pos, len, 1);
        if (esc == -2)
            goto fail;
        if (esc < 0)
            break;
        if (esc + 1 >= len || PyUnicode_READ(kind, data, esc + 1) != '[')
            goto other;
        Py_ssize_t q = esc + 2;
        for (; q < len; q++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, q);
            if (!((c >= '0' && c <= '9') || c == ';' || c == ':'))
                break;
        }
        if (q >= len || PyUnicode_READ(kind, data, q) != 'm')
            goto other;
        if (append_slice(out, block, pos, esc) < 0 || append_slice(out, block, esc + 2, q) < 0)
            goto fail;
        pos = q + 1;
    }
    if (append_slice(out, block, pos, len) < 0)
        goto fail;
    return out;
other:
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    Py_DECREF(out);
    return NULL;
}

/* make_runs(chars, attrs, end) -> list[(text, attr)]
   Cells [0, end) grouped into runs of equal attributes, as cells.make_runs
   does with itertools.groupby: equal by ``==`` (identity first), each run
   keyed by its first cell's Attr, its text the cells joined. */
static PyObject *
make_runs(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "make_runs(chars: list, attrs: list, end: int)");
        return NULL;
    }
    PyObject *chars = args[0], *attrs = args[1];
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = end;
    if (n > PyList_GET_SIZE(attrs))
        n = PyList_GET_SIZE(attrs);
    if (n > PyList_GET_SIZE(chars))
        n = PyList_GET_SIZE(chars);
    PyObject *out = PyList_New(0);
    PyObject *empty = PyUnicode_New(0, 0);
    if (out == NULL || empty == NULL)
        goto fail;
    for (Py_ssize_t i = 0, j; i < n; i = j) {
        PyObject *a = PyList_GET_ITEM(attrs, i);
        Py_INCREF(a); /* a comparison may run Python code: hold the key */
        for (j = i + 1; j < n; j++) {
            PyObject *b = PyList_GET_ITEM(attrs, j);
            if (b == a)
                continue;
            Py_INCREF(b);
            int same = PyObject_RichCompareBool(a, b, Py_EQ);
            Py_DECREF(b);
            if (same < 0) {
                Py_DECREF(a);
                goto fail;
            }
            if (!same)
                break;
        }
        if (j > n)
            j = n; /* the list shrank under a comparison */
        PyObject *cells = PyList_GetSlice(chars, i, j);
        PyObject *text = cells == NULL ? NULL : PyUnicode_Join(empty, cells);
        Py_XDECREF(cells);
        PyObject *run = text == NULL ? NULL : PyTuple_Pack(2, text, a);
        Py_XDECREF(text);
        Py_DECREF(a);
        if (run == NULL || PyList_Append(out, run) < 0) {
            Py_XDECREF(run);
            goto fail;
        }
        Py_DECREF(run);
    }
    Py_DECREF(empty);
    return out;
fail:
    Py_XDECREF(out);
    Py_XDECREF(empty);
    return NULL;
}

static PyMethodDef methods[] = {
    {"make_runs", (PyCFunction)(void (*)(void))make_runs, METH_FASTCALL,
     "Group a row's cells into (text, attr) runs (see cells.py)."},
    {"cells_of", (PyCFunction)(void (*)(void))cells_of, METH_FASTCALL,
     "One Attr per character of the texts, from their nodes (see styled.py)."},
    {"split_sgr", split_sgr, METH_O, "Split text and SGR sequences (see styled.py)."},
    {"draw_pieces", (PyCFunction)(void (*)(void))draw_pieces, METH_FASTCALL,
     "Perform the common pieces of a styled run (see styled.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_accel", "The styled-run loop of the terminal model, in C.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__accel(void)
{
    CELL_KEY = PyUnicode_InternFromString("c");
    ERASE_KEY = PyUnicode_InternFromString("e");
    BLANK = PyUnicode_FromOrdinal(' ');
    if (CELL_KEY == NULL || ERASE_KEY == NULL || BLANK == NULL)
        return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL)
        return NULL;
    /* What the loader checks against sgr_graph's keys before using it. */
    if (PyModule_AddObjectRef(mod, "CELL", CELL_KEY) < 0 ||
        PyModule_AddObjectRef(mod, "ERASE", ERASE_KEY) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
