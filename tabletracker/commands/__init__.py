"""Subcommands of ``tabletracker``: each module has ``add_arguments`` and ``run``; its one-line help is the message ``cli.command.<name>``."""
