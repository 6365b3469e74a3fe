"""What every full-size klipui screen shares: typed access to the app and a footer that fits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from klipui.app import KlipuiApp


class KlipuiScreen(Screen[None]):
    """A screen of the klipui app whose footer keys compact on narrow terminals."""

    @property
    def klipui(self) -> KlipuiApp:
        # Screens of this package only ever run inside KlipuiApp.
        return self.app  # type: ignore[return-value]

    def on_screen_resume(self) -> None:
        self.app.fit_footer()  # type: ignore[attr-defined]  # the app is a KlipuiApp
