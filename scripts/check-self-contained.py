#!/usr/bin/env python3
"""Checks that the project's text refers to nothing outside the repository: no document,
comment or message names an issue number of the project's tracker (a reader of a release has
none) or a path outside the tree (a sibling folder, a session's working directory). Outside
sources are cited by title, authors, year and public link instead.

Reads every file git tracks (or, outside a git checkout, every file under the root but build
folders), text files only. Exit status 1 with the offending lines."""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
# "issue 22", "issues 24 and 25", "Issue 5's", "issue #7"; "../shared", "/work/", "seeds/".
patterns = [
    ("an issue number", re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)),
    ("a path outside the repository", re.compile(r"\.\./shared\b|(?<![\w.])/work/|\bseeds/")),
]
this_file = pathlib.Path(__file__).resolve()


def tracked_files():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                             capture_output=True).stdout
        return [root / p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in root.rglob("*")
                if p.is_file() and not any(part.startswith(("build", ".git"))
                                           for part in p.relative_to(root).parts)]


failures = []
for path in tracked_files():
    if path.resolve() == this_file or not path.is_file():
        continue
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        continue  # binary files (images)
    lines = text.splitlines()
    for what, pattern in patterns:  # on the whole text: "issue" and its number may be two lines
        for match in pattern.finditer(text):
            number = text.count("\n", 0, match.start()) + 1
            failures.append(f"{path.relative_to(root)}:{number}: {what}: "
                            f"{lines[number - 1].strip()}")

if failures:
    print("check-self-contained: these lines refer to something outside the repository:")
    print("\n".join(failures))
    sys.exit(1)
print("check-self-contained: no issue numbers or outside paths")
