"""Subcommands of ``tabletracker``: each module has ``add_arguments`` and ``run``.

A command's one-line help is the message ``cli.command.<name>`` (``tabletracker/locale/<lang>.cli.po``).
"""
