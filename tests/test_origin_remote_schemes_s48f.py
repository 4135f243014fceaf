"""An origin URL in a scheme git takes for SSH besides ssh:// (git+ssh://, ssh+git://, which git's connect.c reads
as ssh) or git's own protocol (git://, which still names the repository though GitHub no longer serves it) names
its github.com repository; s47k's forms read only ssh:// and http(s):// (s48f review)."""

from __future__ import annotations

import pytest

from sweepgate.core.github import remote_repository


@pytest.mark.parametrize("url", ["git+ssh://git@github.com/acme/bench.git", "ssh+git://git@github.com/acme/bench",
                                 "git+ssh://github.com:22/acme/bench.git", "git://github.com/acme/bench.git"])
def test_other_schemes_git_takes_name_the_repository(url):
    assert remote_repository(url) == "acme/bench"


@pytest.mark.parametrize("url", ["git+https://github.com/acme/bench", "ftp://github.com/acme/bench",
                                 "git+ssh://git@github.com.evil.example/acme/bench"])
def test_schemes_git_does_not_take_or_other_hosts_stay_refused(url):
    assert remote_repository(url) is None
