"""The terminal boundary's table of invisible characters against an independent one: Perl's
``\\p{Default_Ignorable_Code_Point}``, from the Unicode data Perl ships."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from mcpcost.escaping.terminal import DEFAULT_IGNORABLE


def test_the_default_ignorable_table_is_unicodes() -> None:
    if shutil.which("perl") is None:
        pytest.skip("no perl for an independent Default_Ignorable_Code_Point table")
    script = (
        "for my $c (0..0x10FFFF) { next if $c >= 0xD800 && $c <= 0xDFFF; "
        'print "$c\\n" if chr($c) =~ /\\p{Default_Ignorable_Code_Point}/ }'
    )
    done = subprocess.run(["perl", "-e", script], capture_output=True, text=True, check=True)
    perl = {int(line) for line in done.stdout.split()}
    assert len(perl) > 4000
    assert {ord(c) for c in DEFAULT_IGNORABLE} == perl
