"""Measuring one server: two concurrent captures of ``tools/list``, compared, turned into a
``core.model.Measurement``.

* ``capture``   one launch/connection -> the page-joined tools array, or a classified failure
* ``classify``  typed transport errors -> a status (protocol signals first, narrow text last)
* ``server``    ``measure_server(spec, MeasureOptions(...))``: the one measuring entry that
                audit, measure, sweep, serve and the Action use
* ``child``     the one measuring child process and its line protocol (the Action's isolated
                launches, the sweep's measuring processes)
* ``masking``   the one masking boundary: no secret of the launch in the ``Measurement``
* ``signed_in``  the CI sign-in ``MeasureOptions.sign_in`` takes (``MCPCOST_OAUTH_*``)
* ``containers``  where a spec runs (``place``): each capture in a fresh container (``--docker``)
"""

from __future__ import annotations

from mcpcost.measuring.server import MeasureOptions, measure_server

__all__ = ["MeasureOptions", "measure_server"]
