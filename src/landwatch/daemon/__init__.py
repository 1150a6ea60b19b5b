"""The resident process (`landwatch reviewer`): one per user, draining every registered
repository's work items through one job queue per kind (review, push, maintenance, ...).

loop: the loop, composing repositories (what is drained), dispatch (claims into the queues) and
duties (recovery, pruning, the sweep, the clock); sweep: the reflogs read for landings nobody
recorded; landings: what one of their entries lands; watch, watched: file events that wake it;
wakeup: how anything wakes it; settings: its knobs; lock: who runs; process: how it runs.
"""
