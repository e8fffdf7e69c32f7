"""Specs for ``minigrad.functions.activation``."""

from __future__ import annotations
