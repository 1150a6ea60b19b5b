"""landwatch: records every commit that lands and reviews it in the background.

Git is never slowed down: hooks only record; a per-user resident reviewer does the work.
"""

from __future__ import annotations

__version__ = "0.1.0"
