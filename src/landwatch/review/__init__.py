"""The standards review: reading a landed change, its rules, linters, config and reports."""

from __future__ import annotations
