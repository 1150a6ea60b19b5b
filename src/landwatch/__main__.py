"""`python -m landwatch`: the same front door as the `landwatch` command."""

from __future__ import annotations

from landwatch.cli import main

raise SystemExit(main())
