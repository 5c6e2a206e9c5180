"""The one template environment (``mcpcost.runtime.templating``) behind the Action's comment and
summary and the sweep's pages: sandboxed, strict about undefined names, HTML-only autoescape,
templates read from the package, the shared escaping filters."""

from __future__ import annotations

from importlib import resources

import pytest
from jinja2 import TemplateNotFound, UndefinedError
from jinja2.exceptions import SecurityError

from mcpcost.escaping.markdown import code_span, md_text
from mcpcost.runtime.templating import FILTERS, autoescapes, environment, render, thousands
from mcpcost.sweep import pages


def _template_names() -> list[str]:
    folder = resources.files("mcpcost").joinpath("templates")
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".j2"))


def test_every_package_template_loads() -> None:
    names = _template_names()
    assert {"comment.md.j2", "summary.md.j2", "leaderboard.md.j2", "dashboard.html.j2"} <= set(
        names
    )
    for name in names:
        assert environment().get_template(name).name == name


def test_the_action_and_the_pages_share_one_environment() -> None:
    assert environment() is environment()
    # both renderers go through it: a missing variable is an error in either, never blank text
    with pytest.raises(UndefinedError):
        render("comment.md.j2", {})
    with pytest.raises(UndefinedError):
        pages.render("index.md.j2")


def test_undefined_names_fail_the_render() -> None:
    template = environment().from_string("a {{ missing }} b")
    with pytest.raises(UndefinedError):
        template.render()
    assert environment().from_string("{{ here }}").render(here="x") == "x"


def test_sandbox_refuses_unsafe_attributes() -> None:
    template = environment().from_string("{{ value.__class__.__mro__ }}")
    with pytest.raises(SecurityError):
        template.render(value="x")


@pytest.mark.parametrize(
    ("name", "escapes"),
    [
        ("dashboard.html.j2", True),
        ("x.html.j2", True),
        ("comment.md.j2", False),
        ("leaderboard.md.j2", False),
        ("page.html", False),
        (None, False),
    ],
)
def test_only_html_templates_autoescape(name: str | None, escapes: bool) -> None:
    assert autoescapes(name) is escapes


def test_whitespace_control_and_trailing_newline() -> None:
    text = environment().from_string(
        "{% if x %}\n  {% for i in x %}\n{{ i }}\n{% endfor %}\n{% endif %}\nend\n"
    )
    assert text.render(x=[1, 2]) == "1\n2\nend\n"


@pytest.mark.parametrize(
    "name", ["../pyproject.toml", "/etc/passwd", "sub/x.j2", ".hidden", "nope.j2"]
)
def test_loader_reads_only_package_templates(name: str) -> None:
    with pytest.raises(TemplateNotFound):
        environment().get_template(name)


def test_shared_filters_are_the_markdown_module() -> None:
    env = environment()
    for name, fn in FILTERS.items():
        assert env.filters[name] is fn
    evil = "@team <b>x</b> | `y`"
    out = env.from_string("{{ v | md_text }}/{{ v | code_span }}/{{ n | thousands }}").render(
        v=evil, n=1234567
    )
    assert out == f"{md_text(evil)}/{code_span(evil)}/1,234,567"
    assert thousands(None) == "—" and pages.thousands is thousands


def test_render_reads_the_package_template_and_keeps_markdown_raw() -> None:
    row = {"rank": 1, "name": "a<b>", "slug": "a", "tokens": "1,200", "tools": "3", "band": "S"}
    body = render("index.md.j2", {"rows": [row], "not_measured": [], "methodology": "9"})
    assert body.startswith("# Servers\n\nContext cost of each measured server (methodology v9")
    # markdown templates do not autoescape: escaping is the caller's (md_text) job
    assert "| 1 | [a<b>](a.md) | 1,200 | 3 | S |\n" in body
    assert body.endswith("|\n") and "Not measured" not in body
