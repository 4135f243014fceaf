"""CLI wording leftovers (s31): a symbolic link that loops (``ln -s a b; ln -s b a``) given as `--db` read "the
store's folder cannot be written" (or, to a reader, "no results store here"), one given as a result path "no such
file or folder", and one met in a walked folder "a symbolic link to nothing"; a link to nothing given as a result
path read "no such file or folder" too. Each is now one line saying which link loops (its chain) or where it points,
and how to mend it. And in a JSON list of outputs (a multi-node job's), a refusal naming the run it differs from
said "on line N" with N the run's place in the list, not a line of the file: it now names the line where that
run's key is. Real files, real links, `sweepgate` as a real process."""

from __future__ import annotations

import json

from helpers import no_ref_said, sweepgate_at, vllm_output


def _loop(folder, a: str = "a", b: str = "b"):
    """``a -> b -> a`` in ``folder``; returns ``folder / a``."""
    (folder / b).symlink_to(a)
    (folder / a).symlink_to(b)
    return folder / a


def _output(folder, name: str = "out.json"):
    path = folder / name
    path.write_text(json.dumps(vllm_output()))
    return path


def _one_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_a_db_that_is_a_link_loop_is_said_to_be_one(tmp_path):
    db = _loop(tmp_path)
    output = _output(tmp_path)
    for command in (["results", "ingest", "--db", f"sqlite:///{db}", str(output)],
                    ["results", "show", "--db", f"sqlite:///{db}"]):
        line = _one_line(sweepgate_at(tmp_path, *command))
        assert line == (f"{db}: is a symbolic link in a loop (a -> b -> a); point the link at the store file "
                        "(ln -sfn FILE LINK), or pass another --db URL"), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "out.json"]  # nothing made beside it


def test_ci_reuse_says_a_looping_db_is_one_rather_than_no_store(tmp_path):
    """`ci reuse` looked for the store, found no file and reused nothing, exit 0: a loop is no missing store."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    (tmp_path / "m.json").write_text('{"single_node": {}}')
    _loop(tmp_path, "r.db", "s.db")
    line = _one_line(sweepgate_at(tmp_path, "ci", "reuse", "--db", "sqlite:///r.db", "--matrix", "m.json",
                                  "--out", "o.json", "--run-id", "1"))
    assert line.startswith("r.db: is a symbolic link in a loop (r.db -> s.db -> r.db); point the link at the "
                           "store file"), line
    assert not (tmp_path / "o.json").exists()


def test_a_db_under_a_looping_or_dangling_folder_link_names_that_link(tmp_path):
    """`mkdir -p` would say "File exists" of either: the fix it was told (create the folder) did nothing."""
    loop = _loop(tmp_path)
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    output = _output(tmp_path)
    for folder, said in ((loop, "is a symbolic link in a loop (a -> b -> a); point the link at a folder"),
                         (tmp_path / "gone", f"is a symbolic link to {tmp_path / 'nowhere'}, which does not exist; "
                                             "create the folder it points to")):
        db = folder / "r.db"
        line = _one_line(sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{db}", str(output)))
        assert line.startswith(f"{db}: {folder} (a folder on its way) {said}"), line
        assert "mkdir" not in line and "cannot be written" not in line, line


def test_a_result_path_that_is_a_link_loop_or_to_nothing_says_so(tmp_path):
    _loop(tmp_path, "c.json", "d.json")
    (tmp_path / "gone.json").symlink_to("nowhere.json")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    fix = "point the link at the results (ln -sfn TARGET LINK), or pass the files themselves"
    for given, said in (("c.json", "is a symbolic link in a loop (c.json -> d.json -> c.json)"),
                        ("gone.json", "is a symbolic link to nowhere.json, which does not exist"),
                        ("c.json/x.json", "c.json (a folder on its way) is a symbolic link in a loop "
                                          "(c.json -> d.json -> c.json)")):
        line = _one_line(sweepgate_at(tmp_path, "results", "ingest", "--db", db, given))
        assert line == f"{given}: {said}; {fix}", line


def test_a_link_loop_in_a_walked_folder_is_not_called_a_link_to_nothing(tmp_path):
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    _output(jobs)
    _loop(jobs, "l1.json", "l2.json")
    proc = sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}", "jobs")
    refused = no_ref_said(proc.stderr).strip().splitlines()  # jobs/out.json is stored, on no ref
    assert refused == [
        "jobs/l1.json: a symbolic link in a loop (l1.json -> l2.json -> l1.json); not ingested; fix the link or "
        "remove it",
        "jobs/l2.json: a symbolic link in a loop (l2.json -> l1.json -> l2.json); not ingested; fix the link or "
        "remove it"], proc.stderr
    assert proc.returncode == 1 and "(1 new)" in proc.stdout, proc.stdout  # the output beside them is stored


def test_a_json_list_s_refusal_names_the_line_of_the_other_run_not_its_place_in_the_list(tmp_path):
    """Two outputs of a multi-node job's list at one point, of two models: the second is refused at its
    model_id, and the first is named by the line its model_id is on (5, pretty-printed), not "line 1"."""
    first, second = vllm_output(), vllm_output(model_id="other/model")
    path = tmp_path / "multi.json"
    path.write_text(json.dumps([first, second], indent=2))
    lines = path.read_text().splitlines()
    at = [n for n, text in enumerate(lines, 1) if '"model_id"' in text]
    assert at == [5, at[1]] and at[1] > 5
    line = _one_line(sweepgate_at(tmp_path, "results", "ingest", "--db", f"sqlite:///{tmp_path / 'r.db'}",
                                  "multi.json"))
    assert line.startswith(f'multi.json:{at[1]}:5: model_id: "other/model" here but "{first["model_id"]}" on line 5 '
                           "(output 1 of the list), at the same point"), line
