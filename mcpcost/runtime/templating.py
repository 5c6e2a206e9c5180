"""The one Jinja environment every renderer uses: the Action's comment and summary, the sweep's
pages (pure apart from reading the package's own templates).

Templates live in ``mcpcost/templates/`` and are read through ``importlib.resources``, so they
load the same from a checkout, a wheel or the Action's image. The environment is sandboxed,
undefined names are errors (a misspelt variable fails the render instead of printing nothing),
``*.html.j2`` templates autoescape and Markdown ones do not. Untrusted text is escaped by the
callers with ``mcpcost.escaping.markdown`` before it reaches a template; the same functions are
registered as filters under their own names so a template can apply them too, plus
``thousands`` for counts and ``counted`` for a count with its noun (``n | counted("tool")``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateNotFound
from jinja2.sandbox import SandboxedEnvironment

from mcpcost.core.plural import counted
from mcpcost.escaping.markdown import (
    code_span,
    code_text,
    escape_html,
    md_text,
    neutralize_mentions,
    one_line,
    truncate,
)

TEMPLATE_PACKAGE = "mcpcost"
TEMPLATE_DIR = "templates"
HTML_SUFFIX = ".html.j2"


def thousands(value: int | None) -> str:
    """A count with thousands separators; ``None`` (no number) as an em dash."""
    return "—" if value is None else f"{value:,}"


FILTERS: dict[str, Callable[..., str]] = {
    "md_text": md_text,
    "code_span": code_span,
    "code_text": code_text,
    "one_line": one_line,
    "truncate_text": truncate,
    "escape_html": escape_html,
    "neutralize_mentions": neutralize_mentions,
    "thousands": thousands,
    "counted": counted,
}


def autoescapes(name: str | None) -> bool:
    """Only HTML templates escape their output; Markdown escaping is the callers' job."""
    return bool(name and name.endswith(HTML_SUFFIX))


class PackageTemplates(BaseLoader):
    """Templates from ``mcpcost/templates/`` via importlib.resources; never reloaded."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, None, Any]:
        if "/" in template or "\\" in template or template.startswith("."):
            raise TemplateNotFound(template)
        folder = resources.files(TEMPLATE_PACKAGE).joinpath(TEMPLATE_DIR)
        try:
            text = folder.joinpath(template).read_text("utf-8")
        except OSError:
            raise TemplateNotFound(template) from None
        return text, None, lambda: True


@cache
def environment() -> SandboxedEnvironment:
    """The shared sandboxed environment over the package's templates."""
    env = SandboxedEnvironment(
        loader=PackageTemplates(),
        autoescape=autoescapes,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(FILTERS)
    return env


def render(template: str, context: dict[str, Any]) -> str:
    """``template`` (a file name in ``mcpcost/templates/``) rendered with ``context``."""
    return environment().get_template(template).render(**context)
