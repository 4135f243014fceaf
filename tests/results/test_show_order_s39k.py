"""`results show` with main's and a PR's lines of the same points (a new AMD + NVIDIA user, s39k)."""

from __future__ import annotations

import json

from helpers import ROW, run_cli, vllm_output


def test_main_s_line_of_a_point_comes_before_the_pr_s_at_every_point(tmp_path, capsys):
    """A point's lines were ordered by their result files' names, so where main's outputs were named by hand
    (`b300_c32.json`) and the PR's by its jobs (`dsv4_8k1k_..._conc32_...`), main's line stood above the PR's
    at one point and below it at the next: a reader comparing the two read a different order at each point.
    Main's line now comes first at every point, then each other ref's, whatever the files are named."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    names = {("refs/heads/main", 4): "zz_c4.json", ("refs/heads/main", 8): "aa_c8.json",
             ("refs/pull/7/head", 4): "mm_c4.json", ("refs/pull/7/head", 8): "mm_c8.json"}
    for (ref, conc), name in names.items():
        (tmp_path / f"row{conc}.json").write_text(json.dumps(dict(ROW, conc=conc)), encoding="utf-8")
        folder = tmp_path / ref.replace("/", "_")
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(json.dumps(vllm_output(conc)), encoding="utf-8")
        run_id = "101" if ref.endswith("main") else "900"
        rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, "--row", str(tmp_path / f"row{conc}.json"),
                             "--run-id", run_id, "--ref", ref, "--config-key", "dsr1-fp4-b300-vllm",
                             str(folder / name))
        assert rc == 0, err
    for extra in ((), ("--json",)):
        rc, out, err = run_cli(capsys, "results", "show", "--db", db, *extra)
        assert rc == 0, err
        if extra:
            order = [(rec["conc"], rec["ref"]) for rec in json.loads(out)]
        else:
            order = [(int(line.split("│")[3]), line.split("│")[-3].strip()) for line in out.splitlines()
                     if "dsr1-fp4-b300-vllm" in line]
            order = [(conc, "refs/heads/" + ref if ref == "main" else "refs/" + ref) for conc, ref in order]
        assert order == [(4, "refs/heads/main"), (4, "refs/pull/7/head"),
                         (8, "refs/heads/main"), (8, "refs/pull/7/head")], (extra, out)
