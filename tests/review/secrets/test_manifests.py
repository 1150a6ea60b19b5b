"""Kubernetes manifests (review.secrets.manifests): a Secret's data values are credentials, a
SealedSecret's are encrypted; other kinds, templates and samples are not."""

from __future__ import annotations

from landwatch.review.secrets.manifests import sealed, secret_data

SECRET = b"""apiVersion: v1
kind: Secret
metadata:
  name: db
type: Opaque
data:
  password: UyFCXCpkJHpEc2I9Zq8W
  short: YmFyCg==
  template: "{{ .Values.password }}"
  .dockercfg: |
    eyJhdXRocyI6eyJodHRwczovL2luZGV4LmRvY2tlci5pbyJ9fQ==
stringData:
  token: "Zq8Wv7Tu6Rs5QpX3"
"""


def test_a_secret_s_data_values() -> None:
    found = secret_data(SECRET)
    assert set(found) == {7, 11, 13}
    assert SECRET.split(b"\n")[6][slice(*found[7])] == b"UyFCXCpkJHpEc2I9Zq8W"
    assert SECRET.split(b"\n")[12][slice(*found[13])] == b"Zq8Wv7Tu6Rs5QpX3"


def test_the_kind_may_come_after_the_data_and_documents_are_apart() -> None:
    later = b"apiVersion: v1\ndata:\n\tpassword: UyFCXCpkJHpEc2I9Zq8W\nkind: 'Secret'\n"
    assert set(secret_data(later)) == {3}
    other = b"kind: ConfigMap\ndata:\n  password: UyFCXCpkJHpEc2I9Zq8W\n---\nkind: Secret\n"
    assert secret_data(other) == {}


def test_other_kinds_hold_no_secret() -> None:
    external = SECRET.replace(b"kind: Secret", b"kind: ExternalSecret")
    assert secret_data(external) == {}
    assert not sealed(SECRET)
    assert sealed(SECRET.replace(b"kind: Secret", b"kind: SealedSecret"))
