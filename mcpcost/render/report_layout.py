"""How the report is laid out, and the formats it can be written in: values every renderer reads
(``renderer`` picks one of them; the renderers import this, never ``renderer``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

DEFAULT_WIDTH = 100  # the text report's columns when the terminal's width is not known


class OutputFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


@dataclass(frozen=True, slots=True, kw_only=True)
class Layout:
    """How the report is laid out: the text fits ``width`` columns (Markdown is reflowed by its
    viewer); ``by_file`` gives one block per config file instead of one per client session.
    JSON holds both views whatever the layout."""

    by_file: bool = False
    width: int = DEFAULT_WIDTH
    details: bool = False  # the text report shows every part, not the overview's selection
