"""What each lockfile holds (review.dependencies.lockfiles): every package it locks by name, with
each version it locks it at; Python names in their normal form; None for a file it cannot read."""

from __future__ import annotations

import json
import textwrap

from landwatch.review.dependencies import lockfiles


def test_package_lock_of_every_format_version() -> None:
    lock = {
        "lockfileVersion": 3,
        "packages": {
            "": {"name": "shop"},
            "node_modules/left-pad": {"version": "1.3.0"},
            "node_modules/a/node_modules/left-pad": {"version": "1.1.0"},
            "node_modules/@scope/pkg": {"version": "2.0.0"},
        },
        "dependencies": {"old": {"version": "0.1.0", "dependencies": {"deep": {"version": "3"}}}},
    }
    assert lockfiles.package_lock(json.dumps(lock).encode()) == {
        "left-pad": {"1.3.0", "1.1.0"},
        "@scope/pkg": {"2.0.0"},
        "old": {"0.1.0"},
        "deep": {"3"},
    }
    assert lockfiles.READERS["npm-shrinkwrap.json"] is lockfiles.package_lock


def test_yarn_lock() -> None:
    yarn = textwrap.dedent("""\
        # yarn lockfile v1

        left-pad@^1.3.0, left-pad@~1.3:
          version "1.3.0"

        "@scope/pkg@^2":
          version "2.1.0"
        """).encode()
    assert lockfiles.yarn_lock(yarn) == {"left-pad": {"1.3.0"}, "@scope/pkg": {"2.1.0"}}


def test_pnpm_lock() -> None:
    pnpm = textwrap.dedent("""\
        lockfileVersion: '9.0'
        packages:
          left-pad@1.3.0:
            resolution: {integrity: sha512-x}
          '@scope/pkg@2.0.0':
            resolution: {integrity: sha512-y}
          /old-style/4.1.0:
            resolution: {integrity: sha512-z}
        """).encode()
    assert lockfiles.pnpm_lock(pnpm) == {
        "left-pad": {"1.3.0"},
        "@scope/pkg": {"2.0.0"},
        "old-style": {"4.1.0"},
    }


def test_toml_locks_of_cargo_and_python() -> None:
    packages = textwrap.dedent("""\
        version = 3
        [[package]]
        name = "Flask_SQLAlchemy"
        version = "3.1.1"
        [[package]]
        name = "serde"
        version = "1.0.203"
        """).encode()
    assert lockfiles.READERS["Cargo.lock"](packages) == {
        "Flask_SQLAlchemy": {"3.1.1"},
        "serde": {"1.0.203"},
    }
    for python in ("uv.lock", "poetry.lock", "pdm.lock"):
        assert lockfiles.READERS[python](packages) == {
            "flask-sqlalchemy": {"3.1.1"},
            "serde": {"1.0.203"},
        }


def test_pipfile_lock() -> None:
    lock = {
        "_meta": {"hash": {"sha256": "x"}},
        "default": {"Requests": {"version": "==2.31.0"}},
        "develop": {"pytest": {"version": "==8.2.0"}, "mine": {"path": "."}},
    }
    assert lockfiles.pipfile_lock(json.dumps(lock).encode()) == {
        "requests": {"2.31.0"},
        "pytest": {"8.2.0"},
        "mine": {""},
    }


def test_go_sum() -> None:
    go_sum = (
        b"golang.org/x/text v0.14.0 h1:abc=\n"
        b"golang.org/x/text v0.14.0/go.mod h1:def=\n"
        b"golang.org/x/text v0.13.0/go.mod h1:ghi=\n"
    )
    assert lockfiles.go_sum(go_sum) == {"golang.org/x/text": {"v0.14.0", "v0.13.0"}}


def test_gemfile_lock() -> None:
    gemfile_lock = textwrap.dedent("""\
        GEM
          remote: https://rubygems.org/
          specs:
            rails (7.1.3)
              actionpack (= 7.1.3)
            puma (6.4.2)
        """).encode()
    assert lockfiles.gemfile_lock(gemfile_lock) == {"rails": {"7.1.3"}, "puma": {"6.4.2"}}


def test_composer_lock() -> None:
    lock = {
        "packages": [{"name": "Monolog/Monolog", "version": "3.6.0"}],
        "packages-dev": [{"name": "phpunit/phpunit", "version": "10.5.20"}, {"version": "1"}],
    }
    assert lockfiles.composer_lock(json.dumps(lock).encode()) == {
        "monolog/monolog": {"3.6.0"},
        "phpunit/phpunit": {"10.5.20"},
    }


def test_a_lockfile_that_cannot_be_read_is_none() -> None:
    for name, read in lockfiles.READERS.items():
        assert read(b"\xff\xfe\x00 not a lockfile {[") is None, name
