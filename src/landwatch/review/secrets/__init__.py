"""Finding secrets in text and never repeating them: one module per detector (`private_keys`,
`token_formats`, `assignments`, `credentials`), what they share (`scanning`), all of them at once
(`detectors`), and the redaction every output uses (`redaction`).

A library of detectors without rules: the secret rules (rules/secrets.py) report what it finds.
Nothing is imported here, so that reading a stored report, which needs only the redaction,
compiles none of the detectors' patterns.
"""
