"""Shared fixtures: the ``xp_backend`` fixture comes from minigrad's pytest plugin."""
