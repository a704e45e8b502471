"""Writing the user's files: atomically, with the user's umask, and never over what we did not write.

A report directory carries a marker (:data:`REPORT_MARKER`) listing every file the report
wrote; ``--force`` replaces a directory only when that marker is there and the directory
holds nothing else, and never the current directory, one of its parents, the home directory
or a filesystem root.
"""

from __future__ import annotations

import json
import os
import tempfile

__all__ = ["REPORT_MARKER", "STAGING_TAG", "write_text_atomically", "unwritable_parent", "directory_problem",
           "replace_problem", "write_report_marker", "creation_mode"]

#: the file, inside a report directory, that says geomcheck wrote it and what it wrote
REPORT_MARKER = ".geomcheck-report.json"
#: the file, inside a report still being written, that holds the writer's pid
STAGING_TAG = ".geomcheck-staging"
_MARKER_TAG = "geomcheck report"


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def creation_mode(directory: bool = False) -> int:
    """The mode a plain ``open``/``mkdir`` would give a new file (directory) under the user's umask."""
    return (0o777 if directory else 0o666) & ~_umask()


def write_text_atomically(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it: the old file or the new one, never half.

    The file gets the mode the user's umask gives a new file (a temporary file would be 0600).
    """
    parent = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=".geomcheck-", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, creation_mode())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def unwritable_parent(path):
    """Why nothing can be created at ``path`` (its parent is missing or read-only), else None."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{parent} is not a directory"
    try:
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as exc:
        return f"{parent} is not writable ({exc.strerror})"
    return None


def _empty_path(path) -> bool:
    return not isinstance(path, (str, os.PathLike)) or not str(os.fspath(path)).strip()


def directory_problem(path):
    """Why files cannot be written into the directory ``path`` (created if missing), else None."""
    if _empty_path(path):
        return "an empty path; expected a directory"
    path = os.path.abspath(os.fspath(path))
    if os.path.exists(path) and not os.path.isdir(path):
        return f"{path} exists and is not a directory"
    if os.path.isdir(path):
        try:
            with tempfile.TemporaryFile(dir=path):
                pass
        except OSError as exc:
            return f"{path} is not writable ({exc.strerror})"
        return None
    return unwritable_parent(path)


def _inside(path: str, ancestor: str) -> bool:
    return path == ancestor or path.startswith(ancestor.rstrip(os.sep) + os.sep)


def replace_problem(path):
    """Why the existing directory ``path`` may NOT be replaced by a new report, else None.

    Only an earlier report qualifies: a directory holding our marker and nothing but the files
    the marker lists.
    """
    real = os.path.realpath(path)
    cwd = os.path.realpath(os.getcwd())
    home = os.path.realpath(os.path.expanduser("~"))
    if os.path.islink(os.path.abspath(path).rstrip(os.sep) or os.sep):
        return f"{path} is a symbolic link; give the report directory itself"
    if real == os.path.dirname(real):
        return f"{real} is a filesystem root"
    if _inside(cwd, real):
        return f"{real} is the current directory or one of its parents"
    if _inside(home, real):
        return f"{real} is the home directory or one of its parents"
    marker = os.path.join(real, REPORT_MARKER)
    try:
        with open(marker, encoding="utf-8") as f:
            data = json.load(f)
        written = set(data["files"]) if data.get("written_by") == _MARKER_TAG else None
    except (OSError, ValueError, KeyError, TypeError):
        written = None
    if written is None:
        return f"{real} holds no earlier geomcheck report (no valid {REPORT_MARKER} in it)"
    for here, dirs, files in os.walk(real):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(here, d))]:
            rel = os.path.relpath(os.path.join(here, name), real)
            if rel != REPORT_MARKER and rel not in written:
                return f"{real} holds {rel}, which the earlier report did not write"
    return None


def write_report_marker(root) -> None:
    """List every file under ``root`` in its marker (call last, when the report is complete)."""
    files = sorted(os.path.relpath(os.path.join(here, name), root)
                   for here, _, names in os.walk(root) for name in names if name != STAGING_TAG)
    with open(os.path.join(root, REPORT_MARKER), "w", encoding="utf-8") as f:
        json.dump({"written_by": _MARKER_TAG, "files": files}, f, indent=1)
