"""The project's own hooks (pre-commit, prek, lefthook) as the review reads them, statically:
where each manager reads configuration (`sources`), what the tree declares (`config`; lefthook's
format in `lefthook`, values read without trusting their shape in `values`), what its commands
execute of the tree (`executed`), what trust pins of it (`pin`), reading what the hooks said
(`output`), and the result that joins the commit's review (`results`). Running them is the
wall's (landwatch.wall.project_hooks).
"""
