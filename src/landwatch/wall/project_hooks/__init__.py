"""The project's own hooks (pre-commit, prek, lefthook) run behind the wall on what landed: a
private checkout of the commit (`checkout`), the person's tool found outside every repository
(`tools`), the remote revs held to the commits trusted (`revs`), the two steps of a run (`run`),
and the whole of one landing (`landing`). What the tree declares and what the hooks said are the
review's (review.project_hooks).
"""
