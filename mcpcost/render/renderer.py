"""One interface for the report's stdout formats, and the table that picks one.

A ``Renderer`` turns an audit report, with its diff and its gate verdicts when they are shown,
into the text ``mcpcost audit`` writes to stdout. ``text_report``, ``json_report`` and
``markdown_report`` each define one, ``render``. ``RENDERERS`` maps each ``OutputFormat`` to a
loader that imports that module and returns its renderer, so importing this module loads no
renderer: the command calls the chosen format's loader while the servers start, and only that
renderer's imports are paid for. The layout and the format names live in ``report_layout``, which
the renderers import (never this module).

SARIF (``sarif_report``) is not one of them: it is a file of findings placed at lines of the
config files (``--sarif PATH``, written beside whichever format goes to stdout), made from the
gate findings and the files' entry lines rather than from the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from mcpcost.render import json_report, markdown_report, text_report
from mcpcost.render.report_layout import Layout, OutputFormat

if TYPE_CHECKING:
    from mcpcost.audit.diff import AuditDiff
    from mcpcost.audit.gates import GateResult
    from mcpcost.audit.report_model import AuditReport


class Renderer(Protocol):
    def __call__(
        self,
        report: AuditReport,
        diff: AuditDiff | None,
        gates: GateResult | None,
        layout: Layout,
    ) -> str:
        """The whole output for stdout, ending in a newline."""
        ...


def _text() -> Renderer:

    return text_report.render


def _json() -> Renderer:

    return json_report.render


def _markdown() -> Renderer:

    return markdown_report.render


RENDERERS: Mapping[OutputFormat, Callable[[], Renderer]] = {
    OutputFormat.TEXT: _text,
    OutputFormat.JSON: _json,
    OutputFormat.MARKDOWN: _markdown,
}
