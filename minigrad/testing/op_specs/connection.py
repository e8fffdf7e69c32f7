"""Specs for ``minigrad.functions.connection``."""

from __future__ import annotations
