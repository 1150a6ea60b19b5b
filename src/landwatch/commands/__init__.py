"""The commands: one module each, a plain function with explicit keyword arguments that does
the work and returns the exit status. `landwatch.cli` parses the command line and dispatches.
"""
