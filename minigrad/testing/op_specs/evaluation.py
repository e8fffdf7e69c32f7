"""Specs for ``minigrad.functions.evaluation``."""

from __future__ import annotations
