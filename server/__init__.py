"""The web overlay: ``create_app(config)`` builds the Flask app (see :mod:`server.app`)."""

from server.app import create_app

__all__ = ["create_app"]
