"""Numbers and tables as the human report writes them: thousands separators, signs, shares, and
columns aligned on the text as shown (escaped)."""

from __future__ import annotations

from collections.abc import Sequence

from mcpcost.escaping.terminal import terminal_line


def thousands(value: int) -> str:
    """A count with thousands separators: ``12,345``."""
    return f"{value:,}"


def signed(value: int) -> str:
    """A change with its sign, a real minus, and ``±0`` for none."""
    return f"+{value:,}" if value > 0 else (f"−{-value:,}" if value < 0 else "±0")


def share_percent(share: float) -> str:
    """A share (0 to 1) as a percentage: ``12.5%``."""
    return f"{share * 100:.1f}%"


def table(rows: Sequence[Sequence[str]], right: Sequence[bool], indent: str = "  ") -> list[str]:
    rows = [[terminal_line(c) for c in r] for r in rows]  # widths of what is shown
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [
            c.rjust(w) if right[i] else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        out.append((indent + "  ".join(cells)).rstrip())
    return out
