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
 *
 * The other functions here are the same kind of step: forward scans that
 * find where the parser's possessive expressions end (styled_end,
 * sgr_lines_end, lines_end), the split-walk-cells pass of highlighted lines
 * (sgr_cells, walk_nodes, split_sgr, cells_of), the scrollback records of
 * lines and rows (narrow_lines, row_lines, text_lines) and a row's runs
 * (make_runs).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *CELL_KEY;  /* sgr_graph.CELL: a node's 1-tuple of its Attr */
static PyObject *ERASE_KEY; /* sgr_graph.ERASE: the Attr an erase in it blanks with */
static PyObject *BLANK;     /* " ", a blank cell */

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

/* The state draw_pieces works on; ``node`` is a strong reference. */
typedef struct {
    PyObject *node, *cups, *chars, *attrs, *wrapped, *touched;
    Py_ssize_t y, x, cols, lim, wrap_at;
} Run;

enum { FAILED = -1, STOPPED = 0, DONE = 1 };

static void
set_node(Run *r, PyObject *nxt)
{
    Py_SETREF(r->node, Py_NewRef(nxt));
}

/* A CUP target seen before: the cursor moves there. */
static int
known_cup(Run *r, PyObject *p)
{
    PyObject *pos = PyDict_GetItemWithError(r->cups, p);
    if (pos == NULL)
        return PyErr_Occurred() ? FAILED : STOPPED;
    if (!PyTuple_CheckExact(pos) || PyTuple_GET_SIZE(pos) != 2 ||
        !PyLong_CheckExact(PyTuple_GET_ITEM(pos, 0)) || !PyLong_CheckExact(PyTuple_GET_ITEM(pos, 1)))
        return STOPPED;
    Py_ssize_t y = PyLong_AsSsize_t(PyTuple_GET_ITEM(pos, 0));
    Py_ssize_t x = PyLong_AsSsize_t(PyTuple_GET_ITEM(pos, 1));
    if ((y == -1 || x == -1) && PyErr_Occurred())
        return FAILED;
    r->y = y;
    r->x = x;
    return DONE;
}

/* EL "K", "0K", "1K" or "2K" with no text after it, at the cursor, in the
   rendition's erase Attr (stored in the node by the Python code). */
static int
known_erase(Run *r, PyObject *p, Py_ssize_t len)
{
    Py_UCS4 mode = len == 2 ? PyUnicode_READ_CHAR(p, 0) : '0';
    if (len > 2 || (mode != '0' && mode != '1' && mode != '2') || r->lim < 0 || r->x < 0 ||
        r->y < 0 || r->y >= PyList_GET_SIZE(r->wrapped))
        return STOPPED;
    PyObject *erase = PyDict_GetItemWithError(r->node, ERASE_KEY);
    if (erase == NULL)
        return PyErr_Occurred() ? FAILED : STOPPED;
    PyObject *row, *arow;
    if (!row_of(r->chars, r->y, r->cols, &row) || !row_of(r->attrs, r->y, r->cols, &arow))
        return STOPPED;
    Py_INCREF(erase);
    int rc = erase_line(mode, r->x < r->cols ? r->x : r->cols, r->cols, row, arow, erase,
                        r->wrapped, r->y, r->touched);
    Py_DECREF(erase);
    return rc < 0 ? FAILED : DONE;
}

/* "<params>m<text>" with a transition seen before, the text fitting on the
   line over clean cell boundaries. */
static int
known_sgr_text(Run *r, PyObject *p, Py_ssize_t len)
{
    Py_ssize_t m = PyUnicode_FindChar(p, 'm', 0, len, 1);
    if (m == -2)
        return FAILED;
    if (m < 0 || m == len - 1)
        return STOPPED; /* no SGR, or one with no text (the Python code links it) */
    PyObject *params = PyUnicode_Substring(p, 0, m);
    if (params == NULL)
        return FAILED;
    PyObject *nxt = PyDict_GetItemWithError(r->node, params);
    Py_DECREF(params);
    if (nxt == NULL)
        return PyErr_Occurred() ? FAILED : STOPPED; /* a new transition, or another sequence */
    Py_INCREF(nxt);
    int rc = STOPPED;
    PyObject *cell = PyDict_GetItemWithError(nxt, CELL_KEY);
    if (cell == NULL || !PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 1) {
        rc = PyErr_Occurred() ? FAILED : STOPPED;
        goto out;
    }
    PyObject *attr = Py_NewRef(PyTuple_GET_ITEM(cell, 0));
    Py_ssize_t n = len - m - 1, x = r->x;
    /* Nothing below runs Python code, so the rows checked stay as checked. */
    PyObject *row, *arow;
    if (x >= 0 && x <= r->lim && n <= r->lim - x && row_of(r->chars, r->y, r->cols, &row) &&
        row_of(r->attrs, r->y, r->cols, &arow)) {
        Py_ssize_t end = x + n;
        if (!is_placeholder(PyList_GET_ITEM(row, x)) &&
            !(end < r->cols && is_placeholder(PyList_GET_ITEM(row, end)))) {
            if (write_cells(row, arow, x, p, m + 1, n, attr) < 0 ||
                mark_touched(r->touched, r->y) < 0) {
                rc = FAILED;
            }
            else {
                set_node(r, nxt);
                r->x = end < r->wrap_at ? end : end - 1;
                rc = DONE;
            }
        }
    }
    Py_DECREF(attr);
out:
    Py_DECREF(nxt);
    return rc;
}

static int
one_piece(Run *r, PyObject *p)
{
    if (!PyUnicode_CheckExact(p))
        return STOPPED;
    Py_ssize_t len = PyUnicode_GET_LENGTH(p);
    if (len == 0)
        return STOPPED;
    Py_UCS4 final = PyUnicode_READ_CHAR(p, len - 1);
    int rc = STOPPED;
    if (final == 'm') {
        PyObject *nxt = PyDict_GetItemWithError(r->node, p);
        if (nxt != NULL) {
            set_node(r, nxt); /* an SGR seen before in this rendition */
            return DONE;
        }
        if (PyErr_Occurred())
            return FAILED;
    }
    else if (final == 'H') {
        rc = known_cup(r, p);
    }
    else if (final == 'K') {
        rc = known_erase(r, p, len);
    }
    /* Else, or when the whole piece was not a sequence seen before: an SGR
       with text after it ("1mOK" ends in "K" too). */
    return rc == STOPPED ? known_sgr_text(r, p, len) : rc;
}

static int
get_ssize(PyObject *o, Py_ssize_t *out)
{
    *out = PyLong_AsSsize_t(o);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* draw_pieces(pieces, k, node, cups, chars, attrs, wrapped, touched, y, x, cols, lim, wrap_at)
       -> (k, y, x, node)
   Performs pieces[k:] while they take the shapes above; returns the index of
   the first piece it did not perform (len(pieces) when none is left) and the
   cursor and rendition node after the ones it did.  ``lim`` is ``cols`` when
   text may be drawn here, -1 when it may not. */
static PyObject *
draw_pieces(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "draw_pieces takes 13 arguments");
        return NULL;
    }
    PyObject *pieces = args[0];
    Run r = {args[2], args[3], args[4], args[5], args[6], args[7], 0, 0, 0, 0, 0};
    if (!PyList_CheckExact(pieces) || !PyDict_CheckExact(r.node) || !PyDict_CheckExact(r.cups) ||
        !PyList_CheckExact(r.chars) || !PyList_CheckExact(r.attrs) ||
        !PyList_CheckExact(r.wrapped) || !PySet_CheckExact(r.touched)) {
        PyErr_SetString(PyExc_TypeError, "draw_pieces: unexpected argument types");
        return NULL;
    }
    Py_ssize_t k;
    if (get_ssize(args[1], &k) < 0 || get_ssize(args[8], &r.y) < 0 ||
        get_ssize(args[9], &r.x) < 0 || get_ssize(args[10], &r.cols) < 0 ||
        get_ssize(args[11], &r.lim) < 0 || get_ssize(args[12], &r.wrap_at) < 0)
        return NULL;
    if (k < 0 || r.cols < 1 || r.lim > r.cols) {
        PyErr_SetString(PyExc_ValueError, "draw_pieces: k < 0, cols < 1 or lim > cols");
        return NULL;
    }
    Py_INCREF(r.node);
    /* The list's size is read each time: a lookup may run Python code. */
    for (; k < PyList_GET_SIZE(pieces); k++) {
        PyObject *p = Py_NewRef(PyList_GET_ITEM(pieces, k));
        int rc = one_piece(&r, p);
        Py_DECREF(p);
        if (rc == FAILED) {
            Py_DECREF(r.node);
            return NULL;
        }
        if (rc == STOPPED)
            break;
    }
    return Py_BuildValue("nnnN", k, r.y, r.x, r.node); /* N: the reference goes along */
}

/* cells_of(nodes, texts) -> list
   One Attr per character: nodes[i]'s (its CELL tuple's item) for each
   character of texts[i], concatenated -- what styled.py builds with
   ``reduce(iadd, map(mul, map(cell_of, nodes), map(len, texts)), [])``. */
static PyObject *
cells_of(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "cells_of(nodes: list, texts: list)");
        return NULL;
    }
    /* Copies: a lookup may run Python code, which could change the lists. */
    PyObject *nodes = PyList_AsTuple(args[0]);
    PyObject *texts = PyList_AsTuple(args[1]);
    PyObject *out = NULL;
    if (nodes == NULL || texts == NULL)
        goto done;
    Py_ssize_t count = PyTuple_GET_SIZE(texts), total = 0;
    if (PyTuple_GET_SIZE(nodes) < count) {
        PyErr_SetString(PyExc_ValueError, "cells_of: fewer nodes than texts");
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *t = PyTuple_GET_ITEM(texts, i);
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "cells_of: a text is not a str");
            goto done;
        }
        total += PyUnicode_GET_LENGTH(t);
    }
    out = PyList_New(total);
    if (out == NULL)
        goto done;
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(texts, i)); /* str: immutable */
        if (n == 0)
            continue;
        PyObject *node = PyTuple_GET_ITEM(nodes, i);
        PyObject *cell = PyDict_Check(node) ? PyDict_GetItemWithError(node, CELL_KEY) : NULL;
        if (cell == NULL || !PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 1 ||
            at + n > total) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "cells_of: a node without its cell");
            /* the cells not written yet are NULL: fill them before freeing */
            for (; at < total; at++)
                PyList_SET_ITEM(out, at, Py_NewRef(Py_None));
            Py_CLEAR(out);
            goto done;
        }
        PyObject *attr = PyTuple_GET_ITEM(cell, 0);
        for (Py_ssize_t j = 0; j < n; j++)
            PyList_SET_ITEM(out, at++, Py_NewRef(attr));
    }
done:
    Py_XDECREF(nodes);
    Py_XDECREF(texts);
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
        /* A comparison may run Python code: the lists' sizes are read again. */
        if (n > PyList_GET_SIZE(attrs))
            n = PyList_GET_SIZE(attrs);
        if (i >= n)
            break;
        PyObject *a = Py_NewRef(PyList_GET_ITEM(attrs, i)); /* the run's key, held */
        for (j = i + 1; j < n && j < PyList_GET_SIZE(attrs); j++) {
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
        PyObject *cells = PyList_GetSlice(chars, i, j); /* clamps to the list's size */
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

/* A scrollback record made here, taken out of the cycle collector's lists
   (``NULL`` passes through).  A record holds a str, ints, a bool and
   interned Attrs (or a tuple of them), none of which can ever lead back to
   it, so it can be in no reference cycle; untracked, the collector does not
   walk the history's tens of thousands of them on every full collection
   (CPython does the same to tuples of untracked items by itself). */
static PyObject *
untracked(PyObject *record)
{
    if (record != NULL && PyTuple_CheckExact(record)) {
        PyObject *attrs = PyTuple_GET_ITEM(record, 1);
        if (PyTuple_CheckExact(attrs) && PyObject_GC_IsTracked(attrs))
            PyObject_GC_UnTrack(attrs);
        if (PyObject_GC_IsTracked(record))
            PyObject_GC_UnTrack(record);
    }
    return record;
}

/* Whether every item of cells[a:b] equals ``attr`` (as list.count compares:
   identity first).  -1 on an error. */
static int
all_equal(PyObject *cells, Py_ssize_t a, Py_ssize_t b, PyObject *attr)
{
    for (Py_ssize_t j = a; j < b; j++) {
        if (j >= PyList_GET_SIZE(cells))
            return 0;
        PyObject *c = PyList_GET_ITEM(cells, j);
        if (c == attr)
            continue;
        Py_INCREF(c);
        int same = PyObject_RichCompareBool(c, attr, Py_EQ);
        Py_DECREF(c);
        if (same <= 0)
            return same;
    }
    return 1;
}

/* One scrollback line of narrow_lines (see there); a new reference, or NULL. */
static PyObject *
narrow_line(PyObject *text, PyObject *cells, Py_ssize_t s, Py_ssize_t cols, PyObject *dflt,
            Py_ssize_t overhead, PyObject *empty)
{
    Py_ssize_t w = PyUnicode_GET_LENGTH(text), e = s + w;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t keep = w;
    while (keep > 0 && PyUnicode_READ(kind, data, keep - 1) == ' ')
        keep--;
    if (s < 0 || e > PyList_GET_SIZE(cells) || w > cols || cols < 1) {
        PyErr_SetString(PyExc_ValueError, "narrow_lines: a line wider than a row or past its cells");
        return NULL;
    }
    PyObject *a0; /* held: a comparison may run Python code that empties the list */
    int uniform;
    if (w < cols) {
        a0 = Py_NewRef(dflt);
        uniform = w > 0 && PyList_GET_ITEM(cells, s) != dflt ? 0 : all_equal(cells, s, e, dflt);
    } else {
        a0 = Py_NewRef(PyList_GET_ITEM(cells, s));
        uniform = PyList_GET_ITEM(cells, e - 1) == a0 ? all_equal(cells, s, e, a0) : 0;
    }
    int plain = uniform > 0 && a0 == dflt;
    if (uniform >= 0 && keep < w && !plain) {
        int rest = all_equal(cells, s + keep, e, dflt);
        if (rest < 0)
            uniform = -1;
        else if (!rest)
            keep = cols; /* coloured trailing blanks are visible */
    }
    if (uniform >= 0 && e > PyList_GET_SIZE(cells)) {
        PyErr_SetString(PyExc_ValueError, "narrow_lines: the cells changed");
        uniform = -1;
    }
    if (uniform < 0 || keep == 0) {
        Py_DECREF(a0);
        return uniform < 0 ? NULL : Py_NewRef(empty);
    }
    PyObject *body = keep < cols ? PyUnicode_Substring(text, 0, keep)
                     : w >= cols ? Py_NewRef(text)
                                 : PyObject_CallMethod(text, "ljust", "n", cols);
    if (body == NULL) {
        Py_DECREF(a0);
        return NULL;
    }
    size_t body_size = _PySys_GetSizeOf(body);
    if (body_size == (size_t)-1) {
        Py_DECREF(body);
        Py_DECREF(a0);
        return NULL;
    }
    PyObject *attrs;
    Py_ssize_t cost = overhead + (Py_ssize_t)body_size;
    if (uniform) {
        attrs = a0; /* the reference goes along */
    } else {
        Py_DECREF(a0);
        Py_ssize_t n = keep <= w ? keep : cols;
        attrs = PyTuple_New(n);
        if (attrs == NULL) {
            Py_DECREF(body);
            return NULL;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
            PyObject *c = j < w ? PyList_GET_ITEM(cells, s + j) : dflt;
            PyTuple_SET_ITEM(attrs, j, Py_NewRef(c));
        }
        size_t attrs_size = _PySys_GetSizeOf(attrs);
        if (attrs_size == (size_t)-1) {
            Py_DECREF(body);
            Py_DECREF(attrs);
            return NULL;
        }
        cost += (Py_ssize_t)attrs_size;
    }
    return untracked(Py_BuildValue("NNnnO", body, attrs, keep, cost, Py_False));
}

/* narrow_lines(lines, cells, starts, count, cols, default, overhead, empty)
       -> (list[HistLine], int)
   What Scrollback._push_narrow makes of each of lines[:count] (line k's
   cells from cells[starts[k]]), and the bytes they cost together; the
   caller appends them and trims the history once. */
static PyObject *
narrow_lines(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1]) ||
        !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "narrow_lines: unexpected arguments");
        return NULL;
    }
    PyObject *lines = args[0], *cells = args[1], *starts = args[2], *dflt = args[5];
    PyObject *empty = args[7];
    Py_ssize_t count, cols, overhead;
    if (get_ssize(args[3], &count) < 0 || get_ssize(args[4], &cols) < 0 ||
        get_ssize(args[6], &overhead) < 0)
        return NULL;
    if (count < 0 || count > PyList_GET_SIZE(lines) || count > PyList_GET_SIZE(starts)) {
        PyErr_SetString(PyExc_ValueError, "narrow_lines: count past the lines");
        return NULL;
    }
    PyObject *out = PyList_New(count);
    if (out == NULL)
        return NULL;
    Py_ssize_t total = 0, k = 0;
    for (; k < count; k++) {
        /* Sizes read again: a comparison may run Python code. */
        if (k >= PyList_GET_SIZE(lines) || k >= PyList_GET_SIZE(starts)) {
            PyErr_SetString(PyExc_ValueError, "narrow_lines: the lines changed");
            break;
        }
        PyObject *text = PyList_GET_ITEM(lines, k);
        Py_ssize_t s;
        if (!PyUnicode_Check(text) || get_ssize(PyList_GET_ITEM(starts, k), &s) < 0)
            break;
        Py_INCREF(text);
        PyObject *line = narrow_line(text, cells, s, cols, dflt, overhead, empty);
        Py_DECREF(text);
        if (line == NULL)
            break;
        total += PyLong_AsSsize_t(PyTuple_GET_ITEM(line, 3));
        PyList_SET_ITEM(out, k, line);
    }
    if (k < count) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "narrow_lines: a line is not a str");
        for (; k < count; k++)
            PyList_SET_ITEM(out, k, Py_NewRef(Py_None));
        Py_DECREF(out);
        return NULL;
    }
    return Py_BuildValue("Nn", out, total);
}

/* One scrollback line of row_lines (see there): a new reference; Py_None
   (a new reference too) when the row is not one of ASCII cells; NULL on an
   error. */
static PyObject *
row_line(PyObject *chars, PyObject *attrs, PyObject *wrapped_obj, PyObject *dflt,
         Py_ssize_t overhead, PyObject *empty)
{
    if (!PyList_CheckExact(chars) || !PyList_CheckExact(attrs))
        Py_RETURN_NONE;
    Py_ssize_t cols = PyList_GET_SIZE(chars);
    if (cols < 1 || PyList_GET_SIZE(attrs) != cols)
        Py_RETURN_NONE;
    PyObject *text = PyUnicode_New(cols, 127);
    if (text == NULL)
        return NULL;
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(text);
    for (Py_ssize_t j = 0; j < cols; j++) {
        PyObject *c = PyList_GET_ITEM(chars, j);
        if (!PyUnicode_CheckExact(c) || PyUnicode_GET_LENGTH(c) != 1 ||
            PyUnicode_READ_CHAR(c, 0) >= 0x80) {
            Py_DECREF(text);
            Py_RETURN_NONE; /* a wide half, a mark, a cluster or not ASCII: Python's */
        }
        out[j] = (Py_UCS1)PyUnicode_READ_CHAR(c, 0);
    }
    PyObject *body = NULL, *cell_attrs = NULL, *result = NULL;
    /* Held: a comparison may run Python code that empties the row. */
    PyObject *a0 = Py_NewRef(PyList_GET_ITEM(attrs, 0));
    int wrapped = PyObject_IsTrue(wrapped_obj);
    if (wrapped < 0)
        goto done;
    int uniform = PyList_GET_ITEM(attrs, cols - 1) == a0 ? all_equal(attrs, 0, cols, a0) : 0;
    if (uniform < 0)
        goto done;
    int plain = uniform && a0 == dflt;
    Py_ssize_t keep = cols;
    while (keep > 0 && out[keep - 1] == ' ')
        keep--;
    if (keep < cols) {
        int visible = wrapped;
        if (!visible && !plain) {
            int rest = all_equal(attrs, keep, cols, dflt);
            if (rest < 0)
                goto done;
            visible = !rest;
        }
        if (visible)
            keep = cols; /* coloured trailing blanks; a wrapped row's blanks */
    }
    if (PyList_GET_SIZE(attrs) != cols) {
        result = Py_NewRef(Py_None); /* it changed under us: Python's */
        goto done;
    }
    if (keep == 0) {
        result = Py_NewRef(empty);
        goto done;
    }
    body = keep < cols ? PyUnicode_Substring(text, 0, keep) : Py_NewRef(text);
    if (body == NULL)
        goto done;
    size_t size = _PySys_GetSizeOf(body);
    if (size == (size_t)-1)
        goto done;
    Py_ssize_t cost = overhead + (Py_ssize_t)size;
    if (uniform) {
        cell_attrs = Py_NewRef(a0);
    } else {
        PyObject *cells = PyList_GetSlice(attrs, 0, keep);
        cell_attrs = cells == NULL ? NULL : PyList_AsTuple(cells);
        Py_XDECREF(cells);
        if (cell_attrs == NULL)
            goto done;
        size = _PySys_GetSizeOf(cell_attrs);
        if (size == (size_t)-1)
            goto done;
        cost += (Py_ssize_t)size;
    }
    result = untracked(Py_BuildValue("OOnnO", body, cell_attrs, keep, cost, wrapped_obj));
done:
    Py_DECREF(text);
    Py_DECREF(a0);
    Py_XDECREF(body);
    Py_XDECREF(cell_attrs);
    return result;
}

/* row_lines(chars, attrs, wrapped, default, overhead, empty) -> list
   What Scrollback._push_history makes of each row (chars[k], attrs[k],
   wrapped[k]) whose cells are all ASCII characters, None for any other
   (the caller makes those in Python); the caller keeps them all. */
static PyObject *
row_lines(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1]) ||
        !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "row_lines: unexpected arguments");
        return NULL;
    }
    Py_ssize_t overhead;
    if (get_ssize(args[4], &overhead) < 0)
        return NULL;
    /* Copies: a comparison may run Python code, which could change the lists. */
    PyObject *chars = PyList_AsTuple(args[0]), *attrs = PyList_AsTuple(args[1]);
    PyObject *wrapped = PyList_AsTuple(args[2]), *out = NULL;
    if (chars == NULL || attrs == NULL || wrapped == NULL)
        goto done;
    Py_ssize_t count = PyTuple_GET_SIZE(chars);
    if (PyTuple_GET_SIZE(attrs) != count || PyTuple_GET_SIZE(wrapped) != count) {
        PyErr_SetString(PyExc_ValueError, "row_lines: lists of different lengths");
        goto done;
    }
    out = PyList_New(count);
    if (out == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *line = row_line(PyTuple_GET_ITEM(chars, k), PyTuple_GET_ITEM(attrs, k),
                                  PyTuple_GET_ITEM(wrapped, k), args[3], overhead, args[5]);
        if (line == NULL) {
            for (; k < count; k++)
                PyList_SET_ITEM(out, k, Py_NewRef(Py_None));
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, k, line);
    }
done:
    Py_XDECREF(chars);
    Py_XDECREF(attrs);
    Py_XDECREF(wrapped);
    return out;
}

/* The table of single-width characters a scan tests against (widths.narrow_table). */
static int
get_table(PyObject *o, const unsigned char **table, Py_ssize_t *ntable)
{
    if (!PyBytes_CheckExact(o)) {
        PyErr_SetString(PyExc_TypeError, "the table of narrow characters must be bytes");
        return -1;
    }
    *table = (const unsigned char *)PyBytes_AS_STRING(o); /* bytes: immutable */
    *ntable = PyBytes_GET_SIZE(o);
    return 0;
}

/* The first index from ``p`` (up to ``stop``) of a character not in
   ``table``: the run of single-width characters there. */
static Py_ssize_t
narrow_run(int kind, const void *data, Py_ssize_t p, Py_ssize_t stop, const unsigned char *table,
           Py_ssize_t ntable)
{
    if (kind == PyUnicode_1BYTE_KIND && ntable >= 256) {
        const Py_UCS1 *d = (const Py_UCS1 *)data;
        while (p < stop && table[d[p]])
            p++;
        return p;
    }
    while (p < stop) {
        Py_UCS4 c = PyUnicode_READ(kind, data, p);
        if (c >= (Py_UCS4)ntable || !table[c])
            break;
        p++;
    }
    return p;
}

/* Where ``[N]*+(?:ESC\[[0-9;:]*+F[N]*+)*+`` matched at ``p`` ends, F one of
   the characters of ``finals``: single-width text and the sequences that
   may sit inside a styled run (a sequence not complete ends it). The scan
   both styled_end and sgr_lines_end make. */
static Py_ssize_t
styled_run(int kind, const void *data, Py_ssize_t p, Py_ssize_t stop,
           const unsigned char *table, Py_ssize_t ntable, const char *finals)
{
    for (;;) {
        p = narrow_run(kind, data, p, stop, table, ntable);
        if (p + 1 >= stop || PyUnicode_READ(kind, data, p) != 0x1b ||
            PyUnicode_READ(kind, data, p + 1) != '[')
            return p;
        Py_ssize_t q = p + 2;
        while (q < stop) {
            Py_UCS4 c = PyUnicode_READ(kind, data, q);
            if (!((c >= '0' && c <= '9') || c == ';' || c == ':'))
                break;
            q++;
        }
        if (q >= stop)
            return p;
        Py_UCS4 f = PyUnicode_READ(kind, data, q);
        if (f == 0 || f > 0x7f || strchr(finals, (int)f) == NULL)
            return p;
        p = q + 1;
    }
}

/* sgr_lines_end(text, i, stop, table) -> int
   Where styled.py's _sgr_lines_re, ``(?:[N]*+(?:ESC\[[0-9;:]*+m[N]*+)*+\r\n)++``
   with N the single-width characters, matched at ``i`` with ``stop`` as its
   end, ends: -1 when it does not match.  Every repetition is possessive, so
   one forward scan finds the same end.  N is ``table`` (widths.narrow_table:
   byte c is 1 for a character of the class). */
static PyObject *
sgr_lines_end(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "sgr_lines_end(text: str, i: int, stop: int, table)");
        return NULL;
    }
    PyObject *text = args[0];
    Py_ssize_t p, stop, len = PyUnicode_GET_LENGTH(text), ntable;
    const unsigned char *table;
    if (get_ssize(args[1], &p) < 0 || get_ssize(args[2], &stop) < 0 ||
        get_table(args[3], &table, &ntable) < 0)
        return NULL;
    if (stop > len)
        stop = len;
    if (p < 0 || p > stop) {
        PyErr_SetString(PyExc_ValueError, "sgr_lines_end: i outside the text");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t good = -1; /* the end of the last whole line matched */
    for (;;) {
        p = styled_run(kind, data, p, stop, table, ntable, "m"); /* text and SGRs */
        if (p + 1 < stop && PyUnicode_READ(kind, data, p) == '\r' &&
            PyUnicode_READ(kind, data, p + 1) == '\n') {
            p += 2;
            good = p;
            continue;
        }
        return PyLong_FromSsize_t(good);
    }
}

/* walk_nodes(start, params) -> list | None
   sgr_graph.walk while every transition is in the graph: the nodes after
   each SGR of ``params``, ``start`` first, each one dict lookup as
   ``accumulate(params, dict.get, initial=start)`` makes it; None at the
   first transition missing (the caller fills them in Python). */
static PyObject *
walk_nodes(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "walk_nodes(start: dict, params: list)");
        return NULL;
    }
    /* A copy: a lookup may run Python code, which could change the list. */
    PyObject *params = PyList_AsTuple(args[1]);
    if (params == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(params);
    PyObject *out = PyList_New(n + 1);
    if (out == NULL) {
        Py_DECREF(params);
        return NULL;
    }
    PyObject *node = args[0];
    PyList_SET_ITEM(out, 0, Py_NewRef(node));
    Py_ssize_t k = 0;
    for (; k < n; k++) {
        PyObject *nxt = PyDict_Check(node)
                            ? PyDict_GetItemWithError(node, PyTuple_GET_ITEM(params, k))
                            : NULL;
        if (nxt == NULL || !PyDict_Check(nxt))
            break;
        PyList_SET_ITEM(out, k + 1, Py_NewRef(nxt)); /* held by the list from here */
        node = nxt;
    }
    Py_DECREF(params);
    if (k < n) {
        for (; k < n; k++)
            PyList_SET_ITEM(out, k + 1, Py_NewRef(Py_None));
        Py_DECREF(out);
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    return out;
}

/* lines_end(text, i, cols, table) -> int
   Where parser.py's _LINES_RE, ``(?:[N]{0,cols}\r\n)+`` with N the
   single-width characters, matched at ``i`` ends: -1 when it does not match.
   No CR is in N, so giving characters back never helps and one forward scan
   finds the same end.  N is ``table``, as for sgr_lines_end. */
static PyObject *
lines_end(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "lines_end(text: str, i: int, cols: int, table)");
        return NULL;
    }
    PyObject *text = args[0];
    Py_ssize_t p, cols, stop = PyUnicode_GET_LENGTH(text), ntable;
    const unsigned char *table;
    if (get_ssize(args[1], &p) < 0 || get_ssize(args[2], &cols) < 0 ||
        get_table(args[3], &table, &ntable) < 0)
        return NULL;
    if (p < 0 || p > stop || cols < 0) {
        PyErr_SetString(PyExc_ValueError, "lines_end: i outside the text or cols < 0");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t good = -1;
    for (;;) {
        Py_ssize_t start = p;
        /* at most cols + 1 characters: one more than a line may hold */
        Py_ssize_t lim = stop - start > cols + 1 ? start + cols + 1 : stop;
        p = narrow_run(kind, data, p, lim, table, ntable);
        if (p - start <= cols && p + 1 < stop && PyUnicode_READ(kind, data, p) == '\r' &&
            PyUnicode_READ(kind, data, p + 1) == '\n') {
            p += 2;
            good = p;
            continue;
        }
        return PyLong_FromSsize_t(good);
    }
}

/* text_lines(lines, default, overhead, empty) -> (list[HistLine], int)
   What Scrollback._push_text_lines keeps of each line of single-width text
   in the default rendition, and the bytes they cost together. */
static PyObject *
text_lines(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyList_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "text_lines: unexpected arguments");
        return NULL;
    }
    Py_ssize_t overhead;
    if (get_ssize(args[2], &overhead) < 0)
        return NULL;
    PyObject *lines = args[0], *dflt = args[1], *empty = args[3];
    Py_ssize_t count = PyList_GET_SIZE(lines), total = 0, k = 0;
    PyObject *out = PyList_New(count);
    if (out == NULL)
        return NULL;
    for (; k < count; k++) {
        PyObject *text = PyList_GET_ITEM(lines, k); /* nothing here runs Python code */
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "text_lines: a line is not a str");
            break;
        }
        int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        Py_ssize_t keep = PyUnicode_GET_LENGTH(text);
        while (keep > 0 && PyUnicode_READ(kind, data, keep - 1) == ' ')
            keep--;
        PyObject *line;
        if (keep == 0) {
            line = Py_NewRef(empty);
        } else {
            PyObject *body = PyUnicode_Substring(text, 0, keep);
            if (body == NULL)
                break;
            size_t size = _PySys_GetSizeOf(body);
            if (size == (size_t)-1) {
                Py_DECREF(body);
                break;
            }
            line = untracked(Py_BuildValue("NOnnO", body, dflt, keep,
                                           overhead + (Py_ssize_t)size, Py_False));
            if (line == NULL)
                break;
        }
        total += PyLong_AsSsize_t(PyTuple_GET_ITEM(line, 3));
        PyList_SET_ITEM(out, k, line);
    }
    if (k < count) {
        for (; k < count; k++)
            PyList_SET_ITEM(out, k, Py_NewRef(Py_None));
        Py_DECREF(out);
        return NULL;
    }
    return Py_BuildValue("Nn", out, total);
}

/* styled_end(text, i, table) -> int
   Where parser.py's styled-run expression, ``[N]*+(?:ESC\[[0-9;:]*+[mHK][N]*+)*+``
   with N the single-width characters, matched at ``i`` ends (it may match
   nothing).  Possessive throughout: one forward scan finds the same end.
   N is ``table``, as for sgr_lines_end. */
static PyObject *
styled_end(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "styled_end(text: str, i: int, table)");
        return NULL;
    }
    PyObject *text = args[0];
    Py_ssize_t p, stop = PyUnicode_GET_LENGTH(text), ntable;
    const unsigned char *table;
    if (get_ssize(args[1], &p) < 0 || get_table(args[2], &table, &ntable) < 0)
        return NULL;
    if (p < 0 || p > stop) {
        PyErr_SetString(PyExc_ValueError, "styled_end: i outside the text");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    return PyLong_FromSsize_t(styled_run(kind, data, p, stop, table, ntable, "mHK"));
}

/* sgr_cells(block, start) -> (str, list, dict) | None
   For a block of single-width text and SGR sequences (what _sgr_lines_re
   matched): its text without the sequences, one Attr per character of it
   and the node the block ends in -- what styled.py makes with _split_sgr,
   sgr_graph.walk and _cells, in one pass: every SGR is the same lookup of
   its parameters in the node it follows.  None when a transition is not in
   the graph yet, or an ESC starts anything else (the caller then does it
   in Python, which fills the graph).  A lookup just made is remembered for
   the rest of the call by its node and characters (a small table holding
   its key, compared character by character), so a repeated SGR costs no
   new string and no hash: the same node either way, as dict lookups of an
   unchanged graph give (str keys run no Python code). */
#define SGR_MEMO 64
typedef struct {
    PyObject *node, *key, *next; /* borrowed: the call's list of keys and nodes holds them */
} Memo;

static PyObject *
sgr_cells(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "sgr_cells(block: str, start: dict)");
        return NULL;
    }
    PyObject *block = args[0], *node = args[1]; /* borrowed: each node met is held by keys */
    Py_ssize_t len = PyUnicode_GET_LENGTH(block);
    int kind = PyUnicode_KIND(block);
    const void *data = PyUnicode_DATA(block);
    Memo memo[SGR_MEMO];
    memset(memo, 0, sizeof memo);
    /* The keys made here and the nodes met, held while the memo points at them. */
    PyObject *keys = PyList_New(0);
    PyObject *cells = PyList_New(0);
    _PyUnicodeWriter w;
    _PyUnicodeWriter_Init(&w);
    w.min_length = len;
    PyObject *attr = NULL;
    if (keys == NULL || cells == NULL)
        goto fail;
    {
        PyObject *cell = PyDict_GetItemWithError(node, CELL_KEY);
        if (cell == NULL || !PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 1)
            goto none;
        attr = PyTuple_GET_ITEM(cell, 0);
    }
    Py_ssize_t pos = 0;
    for (;;) {
        Py_ssize_t esc = PyUnicode_FindChar(block, 0x1b, pos, len, 1);
        if (esc == -2)
            goto fail;
        Py_ssize_t end = esc < 0 ? len : esc;
        if (end > pos) {
            if (_PyUnicodeWriter_WriteSubstring(&w, block, pos, end) < 0)
                goto fail;
            for (Py_ssize_t j = pos; j < end; j++)
                if (PyList_Append(cells, attr) < 0)
                    goto fail;
        }
        if (esc < 0)
            break;
        if (esc + 1 >= len || PyUnicode_READ(kind, data, esc + 1) != '[')
            goto none;
        Py_ssize_t q = esc + 2;
        Py_uhash_t h = 5381;
        for (; q < len; q++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, q);
            if (!((c >= '0' && c <= '9') || c == ';' || c == ':'))
                break;
            h = h * 33 + c;
        }
        if (q >= len || PyUnicode_READ(kind, data, q) != 'm')
            goto none;
        Py_ssize_t klen = q - (esc + 2);
        Memo *m = &memo[(h ^ ((Py_uhash_t)node >> 4)) % SGR_MEMO];
        PyObject *nxt = NULL;
        if (m->node == node && PyUnicode_GET_LENGTH(m->key) == klen) {
            int same = 1;
            for (Py_ssize_t j = 0; j < klen && same; j++)
                same = PyUnicode_READ_CHAR(m->key, j) == PyUnicode_READ(kind, data, esc + 2 + j);
            if (same)
                nxt = m->next;
        }
        if (nxt == NULL) {
            PyObject *key = PyUnicode_Substring(block, esc + 2, q);
            if (key == NULL)
                goto fail;
            int rc = PyList_Append(keys, key);
            Py_DECREF(key);
            if (rc < 0)
                goto fail;
            nxt = PyDict_GetItemWithError(node, key);
            if (nxt == NULL) {
                if (PyErr_Occurred())
                    goto fail;
                goto none;
            }
            if (!PyDict_Check(nxt))
                goto none;
            if (PyList_Append(keys, nxt) < 0 || PyList_Append(keys, node) < 0)
                goto fail;
            m->node = node;
            m->key = key;
            m->next = nxt;
        }
        node = nxt;
        PyObject *cell = PyDict_GetItemWithError(node, CELL_KEY);
        if (cell == NULL || !PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 1) {
            if (PyErr_Occurred())
                goto fail;
            goto none;
        }
        attr = PyTuple_GET_ITEM(cell, 0);
        pos = q + 1;
    }
    PyObject *text = _PyUnicodeWriter_Finish(&w);
    Py_DECREF(keys);
    if (text == NULL) {
        Py_DECREF(cells);
        return NULL;
    }
    return Py_BuildValue("NNO", text, cells, node);
none:
    _PyUnicodeWriter_Dealloc(&w);
    Py_XDECREF(keys);
    Py_XDECREF(cells);
    Py_RETURN_NONE;
fail:
    _PyUnicodeWriter_Dealloc(&w);
    Py_XDECREF(keys);
    Py_XDECREF(cells);
    return NULL;
}

static PyMethodDef methods[] = {
    {"make_runs", (PyCFunction)(void (*)(void))make_runs, METH_FASTCALL,
     "Group a row's cells into (text, attr) runs (see cells.py)."},
    {"cells_of", (PyCFunction)(void (*)(void))cells_of, METH_FASTCALL,
     "One Attr per character of the texts, from their nodes (see styled.py)."},
    {"split_sgr", split_sgr, METH_O, "Split text and SGR sequences (see styled.py)."},
    {"narrow_lines", (PyCFunction)(void (*)(void))narrow_lines, METH_FASTCALL,
     "Scrollback lines of highlighted lines scrolling through (see scrollback.py)."},
    {"row_lines", (PyCFunction)(void (*)(void))row_lines, METH_FASTCALL,
     "Scrollback lines of rows of ASCII cells (see scrollback.py)."},
    {"sgr_lines_end", (PyCFunction)(void (*)(void))sgr_lines_end, METH_FASTCALL,
     "Where whole lines of text and SGR sequences end (see styled.py)."},
    {"walk_nodes", (PyCFunction)(void (*)(void))walk_nodes, METH_FASTCALL,
     "The SGR graph's nodes along known transitions (see sgr_graph.py)."},
    {"lines_end", (PyCFunction)(void (*)(void))lines_end, METH_FASTCALL,
     "Where whole lines of plain text end (see parser.py)."},
    {"text_lines", (PyCFunction)(void (*)(void))text_lines, METH_FASTCALL,
     "Scrollback lines of plain text lines (see scrollback.py)."},
    {"styled_end", (PyCFunction)(void (*)(void))styled_end, METH_FASTCALL,
     "Where a styled run ends (see parser.py)."},
    {"sgr_cells", (PyCFunction)(void (*)(void))sgr_cells, METH_FASTCALL,
     "Text, per-cell Attrs and end node of a block of text and SGRs (see styled.py)."},
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
