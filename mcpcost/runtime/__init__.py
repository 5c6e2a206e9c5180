"""Runtime helpers, the IO the layers above share.

* ``output_tree``    the one file writer: atomic, never through a link, a tree's transactions
* ``workers``        a few tasks side by side on threads, results taken as they finish
* ``processes``      server process trees: one interface, one implementation per system
* ``process_exit``   how a command's process ends (a normal exit, its collection made cheap)
* ``clock``          the wall clock and the one timestamp format
* ``templating``     the one Jinja environment the renderers use
* ``http_body``      bounded reads of HTTP bodies
* ``http_session``   the one HTTP session class
* ``addresses``      the address policy: which hosts a request may reach
* ``world_files``    bounded reads of files from the world
* ``github``         the one GitHub REST client (the Action's calls, the adoption code search)
"""
