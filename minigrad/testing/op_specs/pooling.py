"""Specs for ``minigrad.functions.pooling``."""

from __future__ import annotations
