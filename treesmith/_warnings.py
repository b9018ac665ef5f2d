"""Warnings attributed to the user's line, not to treesmith's own.

Python's default filter shows a warning once per (message, category, module, line): a warning
issued with a fixed ``stacklevel`` points at whichever treesmith line sits that many frames up,
which depends on the path (``predict``, ``predict_proba``, a forest's member), so it could be
shown once per session for every caller, or blamed on treesmith.
"""

from __future__ import annotations

import sys
import warnings


def warn_at_user_code(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` with the stack level of the innermost frame outside treesmith."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 1 is this function, 2 its caller (frame)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "treesmith":
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
