"""Rendering an audit: the stdout formats behind one ``Renderer`` interface (``renderer``: text in
``text_report``, JSON in ``json_report``, Markdown in ``markdown_report``), the pieces the human
formats share (``report_layout``, ``text_format``, ``gate_lines``, ``deferral_lines``) and SARIF
(``sarif_report``)."""
