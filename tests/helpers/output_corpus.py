"""The hostile corpus: text a server or a repository can put in front of every output we write.

Each case is one string an attacker controls (a server name in a config, a tool name or
description, instructions, an error message, stderr). ``tests/servers/fixtures/hostile_server.py``
serves these cases; the output tests run them through every sink and check each sink's rule with
the predicates below (the rules themselves are in docs/SECURITY.md).
"""

from __future__ import annotations

import re

import cmarkgfm
from cmarkgfm.cmark import Options

from mcpcost.escaping.cilog import is_workflow_command
from mcpcost.escaping.terminal import ZERO_WIDTH_JOINER, is_unsafe

CASES: dict[str, str] = {
    "ansi-colour": "\x1b[31mred\x1b[0m",
    "ansi-clear-screen": "\x1b[2J\x1b[Hcleared",
    "osc-window-title": "\x1b]0;pwned title\x07",
    "osc8-hyperlink": "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "carriage-return-overwrite": "benign\rOVERWRITTEN",
    "c1-csi": "\x9b31mc1 red",
    "bell-and-nul": "a\x07b\x00c\x7f",
    "bidi-override": "txt.exe\u202egpj.evil\u202c",
    "bidi-isolates": "\u2066left\u2069 \u2067right\u2069 \u200fmark",
    "workflow-command": "::error file=README.md,line=1::spoofed annotation",
    "workflow-command-indented": "  \t::add-mask::hide-the-log",
    "workflow-stop-commands": "::stop-commands::pwn",
    "workflow-after-newline": "first line\n::warning::forged second line",
    "legacy-command": "prefix ##[error]legacy form mid-line",
    "html-img": '<img src="https://evil.example/x.png">',
    "html-break-out": "</details><h1>BIG</h1>",
    "markdown-link": "[click here](https://evil.example)",
    "markdown-image": "![tracker](https://evil.example/t.png)",
    "autolink": "<https://evil.example/auto>",
    "bare-url": "see https://evil.example/bare and www.evil.example or me@evil.example",
    "entities": "&commat;octocat &#64;octocat &lt;b&gt; &#x3C;img&#x3E;",
    "mention-and-ref": "@octocat please see #1",
    "table-pipes": "a | b | c",
    "marker-spoof": "<!-- mcp-context-cost:v1 key=default -->",
    "backslash-run": "ends in backslashes \\\\\\",
}
# A value given to a server in its config's env; the hostile server echoes it on stderr.
SECRET = "corpus-secret-9f3c1e7a55d2"
# Substrings that must never survive into rendered Markdown as markup.
HOSTS = ("evil.example",)


def names() -> list[str]:
    """Every case as a name: unique, non-empty (a config key, a tool name)."""
    return [f"{key} {value}" for key, value in CASES.items()]


def terminal_violations(text: str) -> list[str]:
    """Characters a terminal sink printed raw that it must escape (all but ``\\n``, and the
    zero-width joiner the Markdown boundary itself puts in a document)."""
    return sorted({repr(c) for c in text if c not in ("\n", ZERO_WIDTH_JOINER) and is_unsafe(c)})


def ci_log_violations(text: str) -> list[str]:
    """Lines the GitHub runner would read as workflow commands."""
    return [line for line in text.split("\n") if is_workflow_command(line)]


_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>")
# The elements our own templates produce; anything else in rendered output came from the corpus.
LAYOUT_TAGS = frozenset(
    "p table thead tbody tr th td code ul ol li strong em h2 h3 h4 blockquote sub details "
    "summary br hr pre a".split()
)


def render_gfm(markdown: str) -> str:
    """HTML as GitHub's cmark-gfm renders ``markdown`` (tables, autolinks, raw HTML kept)."""
    html: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE
    )
    return html


def markdown_violations(
    markdown: str,
    *,
    own_links: tuple[str, ...] = (),
    own_tags: frozenset[str] = frozenset(),
    mentions_live: bool = True,
) -> list[str]:
    """What rendered ``markdown`` shows that untrusted text must never produce: an element other
    than the layout ones (and ``own_tags``), a link that is not one of ``own_links``, a link or
    image to a corpus host, a live @mention (also from a decoded entity; where ``mentions_live``,
    as in comments and summaries), an HTML comment anywhere but on the first line (our marker)."""
    html = render_gfm(markdown)
    found: list[str] = []
    for match in _TAG.finditer(html):
        tag = match.group(2).lower()
        if tag not in LAYOUT_TAGS | own_tags:
            found.append(match.group())
        elif (
            tag == "a"
            and not match.group(1)
            and not any(f'href="{link}"' in match.group() for link in own_links)
        ):
            found.append(match.group())
    found += [f"a reference to {h}" for h in HOSTS if re.search(rf"(href|src)=\"[^\"]*{h}", html)]
    outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)  # GitHub links none in code
    if mentions_live and re.search(r"(?<![\w\u200d])@octocat", outside_code):
        found.append("a live @mention")
    rest = markdown.split("\n", 1)[1] if markdown.startswith("<!--") else markdown
    if "<!--" in rest:
        found.append("an HTML comment opener")
    return found
