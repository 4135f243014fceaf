"""Loose ends of a new-user walk of the changelog tools and `plan` (s39l), on real git repositories."""

from __future__ import annotations

from test_plan import DSR1, entry, fleet, make, nvidia_master, rules  # noqa: F401


def _runner_line(fleet, key: str) -> tuple[int, int]:  # noqa: F811
    text = (fleet.root / "configs/nvidia-master.yaml").read_text().splitlines()
    start = text.index(f"{key}:")
    n = next(i for i in range(start, len(text)) if text[i].strip().startswith("runner:"))
    return n + 1, text[n].index("runner:") + 1


def test_a_runner_label_close_to_none_listed_names_the_labels_there_are(fleet):  # noqa: F811
    """New-user walk (s39l): `runner: b2000` on the example fleet, whose labels are `cluster:b300-nv`-like, drew
    "...; Use a listed label, or add the runner ..." with no label named: none was close enough to guess.
    The hint now names the labels configs/runners.yaml lists, at the config's runner line."""
    master = nvidia_master(fleet)
    master[DSR1]["runner"] = "b2000"
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry(DSR1, pr=5))})
    (w,) = rules(p, "unknown-runner")
    assert (w["file"], w["line"], w["col"]) == ("configs/nvidia-master.yaml", *_runner_line(fleet, DSR1)), w
    assert "'b2000' is not in the base's configs/runners.yaml" in w["message"], w
    assert w["hint"].startswith("use a listed label (cluster:b300-nv, cluster:gb200-nv, mi355x-amds), or add "
                                "the runner to configs/runners.yaml on main first"), w


def test_a_misspelt_runner_label_names_every_listed_label_close_to_it(fleet):  # noqa: F811
    master = nvidia_master(fleet)
    master[DSR1]["runner"] = "cluster:b200-nv"
    p = make(fleet, {"configs/nvidia-master.yaml": master,
                     "perf-changelog.yaml": fleet.append_changelog(entry(DSR1, pr=5))})
    (w,) = rules(p, "unknown-runner")
    assert w["hint"].startswith("did you mean 'cluster:gb200-nv'? Use a listed label (close to it: "
                                "cluster:gb200-nv, cluster:b300-nv), or add the runner"), w
