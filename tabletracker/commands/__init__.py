"""Subcommands of ``tabletracker``: each module has ``HELP``, ``add_arguments`` and ``run``."""
