"""Specs for ``minigrad.functions.noise``."""

from __future__ import annotations
