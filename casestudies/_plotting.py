"""Figures for the case studies: matplotlib without a display, PNG and PDF side by side."""

from __future__ import annotations

import os

__all__ = ["figure", "save"]


def figure(*args, **kwargs):
    """A new matplotlib figure (Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kwargs)


def save(fig, out, stem) -> list:
    """Write ``out/stem.png`` and ``out/stem.pdf`` (atomically each) and close the figure.

    Returns the two paths.
    """
    import matplotlib.pyplot as plt

    import matplotlib

    os.makedirs(out, exist_ok=True)
    # the tight bounding box once for both files (bbox_inches="tight" lays the figure out again per file)
    bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(matplotlib.rcParams["savefig.pad_inches"])
    paths = []
    for ext in ("png", "pdf"):
        path = os.path.join(out, f"{stem}.{ext}")
        tmp = os.path.join(out, f".{stem}.partial.{ext}")
        fig.savefig(tmp, dpi=120 if ext == "png" else None, bbox_inches=bbox)
        os.replace(tmp, path)
        paths.append(path)
    plt.close(fig)
    return paths
