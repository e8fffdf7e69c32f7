"""The subcommands of ``python -m minigrad``: one module each, with ``HELP``, ``add_arguments`` and ``run``.

``minigrad/__main__.py`` lists them in ``SUBCOMMANDS``; adding a subcommand is
a module here and one entry there.
"""
