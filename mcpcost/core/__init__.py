"""The methodology, pure: ECMAScript JSON, canonical form, the bundled tokenizer, measuring a
tools array, the measurement record and its words, verifying, bands and badges. The escaping
boundary of each output kind (terminal, CI log, Markdown) lives in ``mcpcost.escaping``, below it.

Values in, values out: nothing here starts a process, opens a connection, writes a file or
reads the clock. The one file it reads is its own data (``bundled.py``: the rank table and the
JavaScript class tables); ``tests/unit/test_layers.py`` holds the package to that.
"""
