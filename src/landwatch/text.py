"""Text for a terminal: anything taken from a repository made printable, durations for people.

Shared by the one line, `landwatch status` and `landwatch show`; it depends on nothing of ours.
"""

from __future__ import annotations


def safe(text: str) -> str:
    """Printable text: control characters (C0, DEL, C1) and lone surrogates shown as escapes."""
    out = []
    for char in text:
        code = ord(char)
        if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 120:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} days"
