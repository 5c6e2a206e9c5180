"""Text made inert for a CI log that a GitHub Actions runner reads for workflow commands (pure).

The runner scans every line a step prints. A line whose text, after leading white space, starts
with ``::`` is a workflow command (``::error::``, ``::add-mask::``, ``::stop-commands::`` ...), and
the older ``##[command]`` form is recognised anywhere in a line. Untrusted text that reached the log
unchanged could therefore annotate files, end log groups, stop command processing or mask the
log. ``neutralize_workflow_commands`` breaks both forms by replacing one character with its visible
escape: the first colon of a leading ``::`` becomes ``\\u003a`` and the bracket of every ``##[``
becomes ``\\u005b``. Inside a JSON string the escape decodes to the same character, so a JSON
document stays valid and keeps its value.

Every line the Action prints that is not one of its own commands passes through this, and so does
everything the CLI writes to stdout or stderr when ``GITHUB_ACTIONS`` is ``true``.
"""

from __future__ import annotations

COLON_ESCAPE = "\\u003a"
BRACKET_ESCAPE = "\\u005b"
# Python's white space is a superset of .NET's ``char.IsWhiteSpace``, which the runner trims; the
# zero-width characters some older .NET versions also trimmed are stripped too, to be safe.
_LEADING = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\u180e\u200b\ufeff"
)


def neutralize_workflow_commands(line: str) -> str:
    """One log line (no ``\\n``) that the runner cannot read as a workflow command."""
    line = line.replace("##[", "##" + BRACKET_ESCAPE)
    body = line.lstrip(_LEADING)
    if body.startswith("::"):
        lead = len(line) - len(body)
        line = line[:lead] + COLON_ESCAPE + line[lead + 1 :]
    return line


def is_workflow_command(line: str) -> bool:
    """Whether the runner would read ``line`` as a workflow command (either form)."""
    return line.lstrip(_LEADING).startswith("::") or "##[" in line


def neutralize_log_text(text: str) -> str:
    """Several lines, each neutralised; line breaks are wherever the runner splits (``\\n``)."""
    return "\n".join(neutralize_workflow_commands(line) for line in text.split("\n"))
