"""The room that runs a repository's code, and the wall around it: linters (`linters`,
`workspace`), the project's hooks and their environments (`project_hooks`), all through one door
(`door`), behind bubblewrap (`sandbox`, `installations`, `seccomp`). Nothing else in landwatch
starts a program with a repository's files or configuration in reach (tests/test_architecture.py).
"""
