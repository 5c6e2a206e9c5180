"""Hypothesis strategies for JSON: values ECMAScript can hold (keys that look like array
indices, integers past 2**53, any float, any text) and wire texts as different writers put them
(spacing, ASCII escapes, a duplicate key). The property tests and the Node cross-checks share them."""

from __future__ import annotations

import json

from hypothesis import strategies as st

keys = st.one_of(
    st.text(max_size=8),
    st.integers(min_value=0, max_value=2**33).map(str),
    st.sampled_from(["0", "01", "-1", "1.5", "4294967294", "4294967295", "__proto__", ""]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(keys, children, max_size=5)
    ),
    max_leaves=30,
)


@st.composite
def wire_texts(draw: st.DrawFn) -> bytes:
    """JSON text as different writers would put it on the wire (spacing, escapes, duplicates)."""
    value = draw(values)
    ensure_ascii = draw(st.booleans())
    indent = draw(st.sampled_from([None, 0, 2]))
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    if draw(st.booleans()) and text.startswith("{") and len(text) > 2:
        # a duplicate key written before the real ones: last value wins, first position kept
        text = '{"dup": 1, "dup": ' + text + "," + text[1:]
    return text.encode("utf-8", errors="surrogatepass")
