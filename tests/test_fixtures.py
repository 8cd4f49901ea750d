"""The shared fixtures leave no trace: a test after one that used ``tmp_cache`` reads the
settings of the real environment again (offline stays offline, the caches are the real ones)."""
from __future__ import annotations

import os

from gaba import config

_seen: dict = {}


def test_a_uses_the_temporary_cache(tmp_cache):
    _seen["tmp"] = str(tmp_cache)
    assert str(config.get_settings().cache_dir).startswith(str(tmp_cache))


def test_b_after_it_the_settings_are_the_environments_again():
    s = config.get_settings()
    assert "tmp" in _seen and not str(s.cache_dir).startswith(_seen["tmp"])
    assert s.offline == config._truthy(os.environ.get("GABA_OFFLINE"))
