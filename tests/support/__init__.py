"""What the tests share: repositories, queues, reviewers and handlers, changes and histories.

The tests directory is on sys.path (its conftest.py sits there), so each is `support.<name>`.
"""

from __future__ import annotations

import os
from pathlib import Path

# The checkout: the hooks, the docs and install.sh the tests read.
ROOT = Path(__file__).resolve().parents[2]
# The tools that are not Python packages, which ./run-tests unpacks (husky, git-lfs, bubblewrap).
TOOLS = Path(os.environ.get("LANDWATCH_TEST_TOOLS", ROOT / ".test-tools"))
