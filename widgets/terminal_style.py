"""How a terminal model's cells become Rich segments: styles, widths, overlays.

Rich has no curly, dotted or dashed underline and no underline colour, so
those SGR parameters ride in the Style's meta (which Rich keeps through
every combination: the view's base style, selection and cursor overlays)
and `Strip.render_style`, where Textual writes a segment to the terminal,
is replaced by `_render_style`, which appends them. What the outer terminal
cannot draw is downgraded here (`set_sgr_support`, from `zirv_dash.outer_sgr`):
a plain underline, no underline colour, no overline.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.color import Color, ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.filter import ANSIToTruecolor, LineFilter
from textual.strip import Strip

from widgets.glass_clusters import detokenize, tokenize
from zirv_dash.outer_sgr import SgrSupport
from zirv_dash.terminal import Attr, cell_width
from zirv_dash.terminal.links import LINK_END
from zirv_dash.terminal.sgr_text import underline_color_params
from zirv_dash.terminal.widths import strip_marks

STYLE_CACHE_MAX = 4096
"""Distinct attribute sets kept; a child cycling through 16 million truecolours
must not grow the cache without bound."""
_style_cache: dict[object, Style] = {}
"""By Attr; a linked one by its Attr without the link and the link's opener, so the
cache keeps no `Link` alive (the pane's link table counts the live ones)."""
_JOINED = re.compile("\u200d.")
_SELECTORS = re.compile("[\ufe0e\ufe0f]")
SGR_KEY = "zirv.sgr"
"""Meta key: SGR parameters written after Rich's own for a segment."""
LINK_KEY = "zirv.link"
"""Meta key: the OSC 8 sequence that opens the segment's hyperlink (closed after it)."""
_support = [SgrSupport()]


def set_sgr_support(support: SgrSupport) -> None:
    """What the outer terminal draws (styles made before are made again)."""
    _support[0] = support
    _style_cache.clear()


def sgr_support() -> SgrSupport:
    return _support[0]


def _color(value: str | int | None) -> Color | None:
    if value is None:
        return None
    if isinstance(value, int):
        return Color.from_ansi(value) if 0 <= value <= 255 else None
    try:
        return Color.parse(value)
    except Exception:  # noqa: BLE001 - a bad colour renders as default, never crashes
        return None


def _extra_sgr(attr: Attr, support: SgrSupport) -> str:
    """The SGR parameters Rich cannot write for `attr`, as far as `support` goes."""
    extra = []
    if attr.underline >= 3 and support.styles:
        extra.append(f"4:{attr.underline}")
    if attr.ul_color is not None and attr.underline and support.ul_color:
        extra.append(underline_color_params(attr.ul_color))
    return ";".join(extra)


def _meta(extra: str, attr: Attr) -> dict[str, str] | None:
    meta = {}
    if extra:
        meta[SGR_KEY] = extra
    if attr.link is not None:
        # Rich's own `link` is not used: Textual restyles linked text on hover,
        # and Rich gives every combined style a new link id.
        meta[LINK_KEY] = attr.link.osc()
    return meta or None


def style_for(attr: Attr) -> Style:
    key: object = attr if attr.link is None else (attr._replace(link=None), attr.link.osc())
    style = _style_cache.get(key)
    if style is None:
        support = _support[0]
        line = attr.underline
        extra = _extra_sgr(attr, support)
        style = Style(
            color=_color(attr.fg),
            bgcolor=_color(attr.bg),
            bold=attr.bold or None,
            dim=attr.dim or None,
            italic=attr.italic or None,
            # Single; or any style where styles are not drawn (double too: SGR 21
            # is "bold off" to some terminals); curly/dotted/dashed go in `extra`.
            underline=(line == 1 or (line > 1 and not support.styles)) or None,
            underline2=(line == 2 and support.styles) or None,
            overline=(attr.overline and support.overline) or None,
            reverse=attr.reverse or None,
            strike=attr.strike or None,
            blink=attr.blink or None,
            meta=_meta(extra, attr),
        )
        if len(_style_cache) >= STYLE_CACHE_MAX:
            _style_cache.clear()
        _style_cache[key] = style
    return style


def fit_run(text: str) -> str:
    """`text` as Rich should draw it so it covers exactly the cells the model gave
    it. They agree on almost everything; where they don't (an emoji joined with
    U+200D is one 2-cell cluster in tmux but several wide characters to Rich),
    the joined-on parts are dropped and the width padded or cut, so the rest of
    the row stays in its columns."""
    if text.isascii():
        return text
    want = cell_width(text)
    text = strip_marks(text)
    if cell_len(text) == want:
        return text
    # Variation selectors first (VS16 makes Rich count an emoji as 2 cells where
    # tmux keeps the base character's width), then joined-on emoji parts.
    fitted = _SELECTORS.sub("", text)
    if cell_len(fitted) != want:
        fitted = _JOINED.sub("", fitted)
    return fitted if cell_len(fitted) == want else set_cell_size(fitted, want)


def glass_text(text: str) -> str:
    """`text` as the glass gets it: risky clusters as tokens of their model
    width (`glass_clusters`), else fitted for Rich (`fit_run`)."""
    tokens = tokenize(text)
    if tokens is not text and cell_len(tokens) == cell_width(text):
        return tokens
    return fit_run(text)


def run_segments(runs: list[tuple[str, Attr]]) -> list[Segment]:
    return [Segment(glass_text(text), style_for(attr)) for text, attr in runs]


def without_theme_colors(filters: Sequence[LineFilter]) -> list[LineFilter]:
    """`filters` less the one that maps ANSI colours to the theme's RGB: for any
    widget that draws a child's screen."""
    return [f for f in filters if not isinstance(f, ANSIToTruecolor)]


def overlay(strip: Strip, start: int, end: int, style: Style) -> Strip:
    """Apply `style` on top of cells [start, end) of `strip`."""
    length = strip.cell_length
    if start >= length:
        pad = Strip([Segment(" " * (end - start), style)])
        return Strip.join([strip.extend_cell_length(start), pad])
    left, middle, right = strip.divide([start, min(end, length), length])
    middle = Strip([Segment(seg.text, (seg.style or Style()) + style) for seg in middle])
    return Strip.join([left, middle, right])


# -- writing to the terminal ------------------------------------------------------------

_ORIGINAL_RENDER_ANSI = Strip.render_ansi
_meta_sgr: dict[bytes, tuple[str, str]] = {}


def _extra_of(meta: bytes) -> tuple[str, str]:
    """The extra SGR parameters and the hyperlink opener in a Style's (pickled)
    meta; cached, as the meta of one Style object is read on every frame it is
    drawn in."""
    got = _meta_sgr.get(meta)
    if got is None:
        # Rich pickles a Style's meta; a Style with these keys is our own.
        found = pickle.loads(meta)  # noqa: S301
        extra, link = found.get(SGR_KEY, ""), found.get(LINK_KEY, "")
        got = (extra if isinstance(extra, str) else "", link if isinstance(link, str) else "")
        if len(_meta_sgr) >= STYLE_CACHE_MAX:
            _meta_sgr.clear()
        _meta_sgr[meta] = got
    return got


def _render_style(cls: type[Strip], style: Style, text: str, color_system: ColorSystem) -> str:
    """`Strip.render_style`, with the SGR parameters and the hyperlink from the
    style's meta. A link is opened before the segment and closed after it, so
    it covers exactly the segment's cells and never outlives its line."""
    ansi = style._ansi
    link = ""
    if style._meta:
        extra, link = _extra_of(style._meta)
        if ansi is None and extra:
            ansi = _ORIGINAL_RENDER_ANSI(style, color_system)
            ansi = style._ansi = f"{ansi};{extra}" if ansi else extra
    if ansi is None:
        ansi = _ORIGINAL_RENDER_ANSI(style, color_system)
    if not text.isascii():
        text = detokenize(text)  # clusters drawn exactly where the model puts them
    output = f"\x1b[{ansi}m{text}\x1b[0m" if ansi else text
    if link:
        output = f"{link}{output}{LINK_END}"
    elif style._link:
        output = f"\x1b]8;id={style._link_id};{style._link}\x1b\\{output}\x1b]8;;\x1b\\"
    return output


Strip.render_style = classmethod(_render_style)  # type: ignore[method-assign,assignment]
