"""Measuring one server: two concurrent captures of ``tools/list``, compared, turned into a
``core.model.Measurement``.

* ``capture``   one launch/connection -> the page-joined tools array, or a classified failure
* ``classify``  typed transport errors -> a status (protocol signals first, narrow text last)
* ``server``    ``measure_server(spec, ...)``: the library call the CLI, audit and sweep use
* ``masking``   the one masking boundary: no secret of the launch in the ``Measurement``
* ``signed_in``  ``measure_server`` signed in: an OAuth authorizer on the transports
* ``containers``  the same measurement with each capture in a fresh container (``--docker``)
"""

from __future__ import annotations

from mcpcost.measuring.server import measure_server

__all__ = ["measure_server"]
