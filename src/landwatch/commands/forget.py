"""`landwatch forget PATH`: drop a registered repository from the reviewer's list (one that is
gone, or that you no longer want reviewed).
"""

from __future__ import annotations

import sys
from pathlib import Path

from landwatch import registry


def forget(path: Path) -> int:
    if not registry.unregister(path):
        print(f"landwatch: {path} is not registered", file=sys.stderr)
        return 1
    print(f"landwatch: forgot {path}")
    return 0
