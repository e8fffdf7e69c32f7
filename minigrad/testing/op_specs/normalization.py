"""Specs for ``minigrad.functions.normalization``."""

from __future__ import annotations
