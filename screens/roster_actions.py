"""Roster search and group folding: `^A /`, `^A ←`, `^A →`.

`^A /` opens the sidebar's search field (showing the sidebar if it was hidden);
while it edits, the input router gives it every key (`capturing`, `key`,
`paste`): Enter focuses the first match and keeps the filter, Esc clears it.
`^A ←`/`^A →` fold and unfold the focused pane's group. The chrome asks
`groups(panes)` for each row's group when it builds the roster.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from widgets.roster_search import Outcome
from widgets.sidebar import Sidebar
from zirv_dash.dash.roster_view import GroupBy, GroupResolver, PaneLike, RowGroup

if TYPE_CHECKING:
    from screens.host import DashboardHost


class RosterActions:
    def __init__(self, screen: DashboardHost, group_by: GroupBy = "repo") -> None:
        self._screen = screen
        self.resolver = GroupResolver(group_by)

    def groups(self, panes: Iterable[PaneLike]) -> dict[str, RowGroup]:
        """Row key → group, for `Sidebar.update_rows(rows, tick, groups)`."""
        return self.resolver.groups(panes)

    def _sidebar(self) -> Sidebar:
        return self._screen.query_one(Sidebar)

    # -- search --------------------------------------------------------------------------

    def action_roster_search(self) -> None:
        screen = self._screen
        if not screen.sidebar_visible():
            screen.dash.sidebar_forced = True  # the field lives in the sidebar
            screen.apply_layout()
        self._sidebar().open_search()
        screen.chrome.schedule()

    @property
    def capturing(self) -> bool:
        """The search field is editing: keys and pastes go to it, not to a pane."""
        return self._sidebar().searching

    def key(self, key: str, character: str | None) -> None:
        sidebar = self._sidebar()
        if sidebar.search_key(key, character) is Outcome.SUBMITTED:
            self._focus_first_match(sidebar)
        self._screen.chrome.schedule()

    def paste(self, text: str) -> None:
        self._sidebar().search_paste(text)

    def _focus_first_match(self, sidebar: Sidebar) -> None:
        screen = self._screen
        if not sidebar.search.text:
            return
        first = sidebar.first_match()
        pane = screen.dash.pane_by_short(first) if first is not None else None
        if pane is None:
            screen.dash.notify(f"roster: nothing matches {sidebar.search.text!r}")
            return
        screen.engine.focus(screen.dash.panes.index(pane))

    # -- groups --------------------------------------------------------------------------

    def action_collapse_group(self) -> None:
        self._fold(True)

    def action_expand_group(self) -> None:
        self._fold(False)

    def _fold(self, folded: bool) -> None:
        screen = self._screen
        focused = screen.dash.focused_pane
        sidebar = self._sidebar()
        group = sidebar.group_of(focused.short) if focused is not None else None
        if group is None:
            screen.dash.notify("roster: the focused pane is not in a group")
            return
        sidebar.set_collapsed(group, folded)
        screen.chrome.schedule()
