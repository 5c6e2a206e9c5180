"""Talking to MCP servers: transports (message pipes) and the session that speaks MCP over them.

* ``base``        the ``Transport`` interface, ``Diagnostics``, ``TransportFactory``
* ``framing``     newline-delimited JSON-RPC over any pair of byte streams
* ``stdio``       local processes in their own process group
* ``http``        Streamable HTTP;  ``legacy_sse``: HTTP+SSE;  ``auto``: the one, then the other
* ``http_transport``  what the two HTTP transports share (``HTTPTransportBase``)
* ``http_answers``  reading an answer within its caps, the auth signals of an error status
* ``network_failures``  what a request that got no answer says about the network
* ``inbox``       the bounded wait on a transport's queue of incoming messages
* ``sse``         a pure Server-Sent Events decoder
* ``session``     JSON-RPC requests, the era handshake, paginated ``tools/list``
* ``open``        the default factory (spec -> transport)
* ``server_url``  a server URL checked before connecting (a ``${VAR}`` value that breaks it)
* ``origin``      our headers stay with the server's origin, across redirects too
* ``auth_probe``  a sign-in before measuring: an unauthenticated request, the challenge answered
* ``failures``    typed failures the measurer turns into statuses
"""

from __future__ import annotations
