"""The resident process (`landwatch reviewer`): one per user, draining every registered
repository's work items through one line per kind (review, push, maintenance, ...).

loop: what it does; watch: file events that wake it; lock: who runs; process: how it runs.
"""
