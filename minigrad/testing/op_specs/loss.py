"""Specs for ``minigrad.functions.loss``."""

from __future__ import annotations
