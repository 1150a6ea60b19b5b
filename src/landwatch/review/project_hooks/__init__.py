"""The project's own hooks (pre-commit, prek, lefthook) run on what landed: what the tree declares
(`config`), what trust pins of it (`pin`), the landed content to run them on (`checkout`), the
tools and how they are started (`tools`), reading what they said (`output`), and the result that
joins the commit's review (`results`); `run` puts them together.
"""
