"""CLI leftovers of the last closing note (s32c), each run in a real git repository:

- the paths a command reads from the repository's top (annotated there, not from a subfolder) were kept
  process-wide after the command ended, so the next diagnostic annotated in the same process (tests call
  ``cli.main`` again and again) was placed by the earlier command's flags; a master config read at a
  revision but gone from the work tree was annotated from the subfolder (`configs/configs/x.yaml`);
- `--config-files ../nope.yaml` typed in configs/ was told to pass `nope.yaml` "from the top", a file that
  is not there either (since s42j such a path is read from configs/, and said missing as typed);
- a checkout's configs folder that is a symbolic link read as no runners file (`ci row-env` went on with no
  pool check), and --tools'/--runners' schema errors named configs/runners.yaml; at a revision a configs
  folder committed as a link read as "no configs/*-master.yaml";
- an output file under a file: "its folder out/afile is not a folder";
- the fix for missing hardware facts in four wordings; `results comment --body` given a link to nothing told
  to pass another file; a script name that is a folder said "missing"; rehearsal problems with no fix."""

from __future__ import annotations

import json

import pytest

from conftest import appended_entry
from test_leftovers_s31i import sweepgate


def annotations(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("::")]


# --- 1. the paths read from the top are the command's own ----------------------------------------

def test_paths_read_from_the_top_end_with_their_command(make_repo, monkeypatch, capsys):
    """`--config-files nope.yaml` in configs/ is annotated at nope.yaml (looked for at the top); once that
    command has ended, nope.yaml typed in configs/ is a path from there again (configs/nope.yaml)."""
    from sweepgate import cli
    from sweepgate.core.errors import Diagnostic

    repo = make_repo()
    monkeypatch.chdir(repo.path / "configs")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    assert cli.main(["full-sweep", "--config-files", "nope.yaml"]) == 1
    assert annotations(capsys.readouterr().err)[0].startswith("::error file=nope.yaml::does not exist; ")
    later = Diagnostic("nope.yaml", 0, 0, "missing", "no such file or folder", "pass result files")
    assert later.annotation() == "::error file=configs/nope.yaml::no such file or folder; pass result files"
    # and the next command's paths are its own: a missing result typed in configs/ is placed from there
    assert cli.main(["results", "ingest", "--db", f"sqlite:///{repo.path / 'r.db'}", "nope.yaml"]) == 1
    assert annotations(capsys.readouterr().err) == [
        "::error file=configs/nope.yaml::no such file or folder; pass result files or the folders that hold them"]


def test_a_config_read_at_a_revision_and_gone_from_the_work_tree_is_annotated_at_it(make_repo):
    repo = make_repo()
    base = repo.head()
    bad = (repo.path / "configs/nvidia-master.yaml").read_text().replace("tp: 8", 'tp: "x"', 1)
    repo.commit({"configs/nvidia-master.yaml": bad, "perf-changelog.yaml": repo.read().decode() + appended_entry()})
    (repo.path / "configs/nvidia-master.yaml").unlink()
    proc = sweepgate(repo.path / "configs", "matrix", "--base-ref", base, "--head-ref", "HEAD", GITHUB_ACTIONS="true")
    assert proc.returncode == 1 and proc.stderr.startswith("configs/nvidia-master.yaml:"), proc.stderr
    assert [a.split("::")[1] for a in annotations(proc.stderr)] == [
        f"error file=configs/nvidia-master.yaml,line={proc.stderr.split(':')[1]}"], proc.stderr


# --- 2. a path typed from a subfolder: read from there (s42j), said as typed ----------------------


def test_a_path_typed_from_a_subfolder_is_said_as_what_it_names_from_there(make_repo):
    repo = make_repo()
    gone = sweepgate(repo.path / "configs", "full-sweep", "--config-files", "../nope.yaml")
    assert gone.returncode == 1 and gone.stderr.startswith("../nope.yaml: does not exist; "), gone.stderr
    folder = sweepgate(repo.path / "configs", "full-sweep", "--runner-config", "../configs")
    assert folder.returncode == 1 and folder.stderr == (
        "../configs: --runner-config takes a file; this is a folder; pass the file, e.g. configs/runners.yaml\n"), \
        folder.stderr


# --- 3. ci row-env, ci split --runners: a linked configs folder; the checkout's file named ------

ROW = {"image": "vllm/vllm-openai:v0.11.0", "model": "deepseek-ai/DeepSeek-R1-0528", "model-prefix": "dsr1",
       "precision": "fp4", "framework": "vllm", "runner": "b300", "tp": 8, "pp": 1, "dcp-size": 1, "pcp-size": 1,
       "ep": 1, "dp-attn": False, "spec-decoding": "none", "conc": 4, "isl": 1024, "osl": 1024,
       "max-model-len": 2304, "exp-name": "dsr1_1k1k", "scenario-type": "fixed-seq-len"}
LINKED = ("configs/runners.yaml: configs (a folder on its way) is a symbolic link to configs-real, and a commit "
          "holds a link as the name it points to, not a file to read; put the folder itself in its place")


def test_row_env_refuses_a_linked_configs_folder(make_repo):
    """Read as none, the job went on outside its pool (elsewhere_0) without its hardware facts, exit 0."""
    top = make_repo().path
    (top / "configs").rename(top / "configs-real")
    (top / "configs").symlink_to("configs-real")
    proc = sweepgate(top, "ci", "row-env", "--row", json.dumps(ROW), "--runner-name", "elsewhere_0",
                     "--output", "env.txt")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [LINKED], proc.stderr
    assert not (top / "env.txt").exists()


def test_split_runners_refuses_main_s_linked_configs_folder(make_repo, tmp_path):
    top = make_repo().path
    main = top / "main"
    main.mkdir()
    (main / "configs-real").mkdir()
    (main / "configs-real/runners.yaml").write_bytes((top / "configs/runners.yaml").read_bytes())
    (main / "configs").symlink_to("configs-real")
    (top / "m.json").write_text(json.dumps({"single_node": {"1k1k": [{**ROW, "runner": "nowhere"}]}, "multi_node": {}}))
    proc = sweepgate(top, "ci", "split", "--matrix", "m.json", "--runners", "main", "--output", "out.txt")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [  # at main's file, not this checkout's
        "main/" + LINKED.replace("configs (a", "main/configs (a")], proc.stderr


@pytest.mark.parametrize("flag", ["--tools", "--runners"])
def test_a_checkout_s_runners_file_is_named_in_its_schema_errors(make_repo, flag):
    top = make_repo().path
    (top / "main/configs").mkdir(parents=True)
    (top / "main/configs/runners.yaml").write_text("labels: 3\n")
    (top / "m.json").write_text(json.dumps({"single_node": {}, "multi_node": {}}))
    argv = (["ci", "row-env", "--row", json.dumps(ROW), "--runner-name", "b300-nv_00", "--output", "env.txt"]
            if flag == "--tools" else ["ci", "split", "--matrix", "m.json", "--output", "out.txt"])
    proc = sweepgate(top, *argv, flag, "main", GITHUB_ACTIONS="true")
    assert proc.returncode == 1 and proc.stderr.splitlines()[0].startswith("main/configs/runners.yaml:1:9: labels: 3 "), \
        proc.stderr
    assert annotations(proc.stderr)[0].startswith("::error file=main/configs/runners.yaml,line=1::"), proc.stderr


# --- 4. a configs folder committed as a link ---------------------------------------------------

@pytest.mark.parametrize("argv, at", [((), "configs"), (("--config-files", "configs/nvidia-master.yaml"),
                                                          "configs/nvidia-master.yaml")],
                         ids=["its master configs", "a config file named"])
def test_a_configs_folder_committed_as_a_link_is_said_to_be_one(make_repo, argv, at):
    repo = make_repo()
    base = repo.head()
    (repo.path / "configs").rename(repo.path / "configs-real")
    (repo.path / "configs").symlink_to("configs-real")
    head = repo.commit({"perf-changelog.yaml": repo.read().decode() + appended_entry()})
    proc = sweepgate(repo.path, "matrix", "--base-ref", base, "--head-ref", head, *argv)
    sha = head[:12]
    said = ("is a symbolic link at {sha} (to configs-real), and a commit holds a link as the name it points to, "
            "not a folder to read" if at == "configs" else "configs (a folder on its way) is a symbolic link at "
            "{sha} (to configs-real), and a commit holds a link as the name it points to, not a file to read")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        f"{at}: {said.format(sha=sha)}; put the folder itself in its place"], proc.stderr


# --- 5. an output file under a file ---------------------------------------------------------------

@pytest.mark.parametrize("where", ["out/afile/ctx.json", "out/afile/sub/ctx.json"])
def test_an_output_file_under_a_file_says_that_file_is_no_folder(make_repo, where):
    top = make_repo().path
    (top / "out").mkdir()
    (top / "out/afile").write_text("")
    (top / "m.json").write_text(json.dumps({"single_node": {}, "multi_node": {}}))
    proc = sweepgate(top, "ci", "split", "--matrix", "m.json", "--job-context", where, "--output", "o.txt")
    assert proc.returncode == 1 and proc.stderr == (
        f"{where}: --job-context: out/afile is a file, not a folder; pass --job-context in an existing folder\n")


# --- 6. one hint for missing hardware facts; --body's link; a script candidate that is a folder ---

def test_missing_hardware_facts_are_mended_in_one_wording_whoever_finds_them(tmp_path, make_repo):
    """The expansion (full-sweep, plan, preflight), plan's multi-node warning and ci split --runners each
    said the fix in words of their own ('hardware['L'].F', 'hardware['L'] with F', 'hardware: {L: {F: N}}')."""
    from test_plan import DSR1_MI, _fleet_without_multi_node_hardware, entry, make, rules

    root, r = _fleet_without_multi_node_hardware(tmp_path)
    p = make(r, {"perf-changelog.yaml": r.append_changelog(entry(DSR1_MI, "dsr1-fp4-gb200-dynamo-trt"))})
    (w,) = rules(p, "no-hardware-facts")
    assert w["hint"] == ("add gpus-per-node and available-cpu-dram-mib under hardware['cluster:gb200-nv'] in "
                         "configs/runners.yaml on main"), w
    row = {**ROW, "runner": "cluster:gb200-nv", "prefill": {"num-worker": 1}, "decode": {"num-worker": 1}}
    top = make_repo().path
    runners = (top / "configs/runners.yaml").read_text()
    (top / "configs/runners.yaml").write_text(runners.replace("labels:\n", "labels:\n  cluster:gb200-nv: [gb200_0]\n", 1))
    (top / "m.json").write_text(json.dumps({"single_node": {}, "multi_node": {"1k1k": [row]}}))
    split = sweepgate(top, "ci", "split", "--matrix", "m.json", "--runners", ".", "--output", "o.txt")
    assert split.returncode == 1 and split.stderr.endswith(
        "; add gpus-per-node under hardware['cluster:gb200-nv'] in configs/runners.yaml on main first\n"), split.stderr


def test_results_comment_body_that_is_a_link_to_nothing_is_told_to_mend_the_link(make_repo):
    top = make_repo().path
    (top / "report.md").symlink_to("gone.md")
    proc = sweepgate(top, "results", "comment", "--body", "report.md", "--pr-number", "3")
    assert proc.returncode == 1 and proc.stderr == (
        "report.md: cannot read the report: it is a symbolic link to gone.md, which does not exist; point the link "
        "at the file (ln -sfn TARGET LINK) or remove it\n"), proc.stderr


def test_preflight_says_a_script_candidate_that_is_a_folder_is_one(tmp_path):
    from test_preflight_refs import fleet, preflight

    script = "benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh"
    repo = fleet(tmp_path, "main")
    (repo / script).unlink()
    (repo / script).mkdir()
    proc = preflight(repo, "--config-keys", "kimik3-fp4-b300-vllm-agentic-dspark-lmcache")
    (told,) = [line for line in proc.stderr.splitlines() if "no benchmark script" in line]
    assert proc.returncode == 1 and (f"none of {script}, benchmarks/single_node/agentic/kimik3_fp4_b300_mtp.sh is a "
                                     f"file ({script} is a folder) ") in told, told
    assert told.endswith("; put the script in the folder's place (CONTRACTS section 7) or fix "
                         "model-prefix/precision/runner/framework"), told


def _rehearsal_problems() -> list[str]:
    """What a rehearsal finds wrong with what a script ran, one of each kind the checks know."""
    from test_rehearse import EVAL_ROW, SEED_ROW

    from sweepgate.rehearsal import multinode, runner

    env = {"PORT": "8000", "SWEEPGATE_ACCELERATOR_RUNTIME": "cuda"}
    served = {"tool": "vllm", "argv": ["serve", "m", "--port", "8000", "--kv-transfer-config", "x"]}
    lmcache = [{"tool": "pip", "argv": ["install", "--no-deps", "lmcache==0.5.4rc2"]},
               {"tool": "lmcache", "argv": ["server", "--l1-size-gb", "1"]}, served]
    arms = [({**SEED_ROW, "kv-offload-backend": {"name": name, "version": "1"}}, calls) for name, calls in
            (("mooncake", [served]), ("vllm-simple", [served]))]
    problems = [*runner.check_calls(SEED_ROW, env, []), *runner.check_calls(SEED_ROW, env, lmcache),
                *(p for row, calls in arms for p in runner.check_calls(row, env, calls)),
                *runner.check_calls({**SEED_ROW, "kv-offload-backend": None}, env, [served]),
                *runner.check_calls({**SEED_ROW, "framework": "sglang"}, env, []),
                *runner.check_backend_build("lmcache", "1", "tpu", []),
                *runner.check_backend_build("lmcache", "1", "rocm", [{"tool": "pip", "argv": ["install", "lmcache==1"]}]),
                *runner.check_backend_build("lmcache", "1", "cuda", [{"tool": "pip", "argv": [
                    "install", "--no-binary", "lmcache", "lmcache==1"]}]),
                *runner.check_eval_calls(EVAL_ROW, []), *runner.check_eval_calls(SEED_ROW, [{"tool": "lm_eval"}]),
                *multinode.check_calls({"prefill": {"num-worker": 1, "tp": 8}, "decode": {"num-worker": 1, "tp": 8}},
                                       env, [{"tool": "python3", "argv": ["-m", multinode.SERVER_MODULE,
                                                                          "--disaggregation-mode", "prefill"]}]),
                *multinode.check_calls({"prefill": {"num-worker": 0, "tp": 8}, "decode": {"num-worker": 0, "tp": 8}},
                                       env, [{"tool": "python3", "argv": ["-m", multinode.ROUTER_MODULE, "--prefill",
                                                                          "http://h:1", "--port", "8000"]}])]
    return problems


def test_every_rehearsal_problem_says_how_to_fix_it():
    """`rehearse` printed `SCRIPT: the script never started `vllm serve``, `expected one LMCache server per
    node, saw 0`, `the script exited 3` ... with no fix part (only the port and call-log lines had one)."""
    problems = _rehearsal_problems()
    assert len(problems) >= 20, problems
    unfixed = [p for p in problems if "; " not in p or not p.rsplit("; ", 1)[1].strip()]
    assert unfixed == [], unfixed


def test_a_failed_rehearsal_line_says_where_to_look(tmp_path):
    from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

    repo, _ = _bench_with_script(tmp_path, "echo boom >&2\nexit 3\n")
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    assert r.returncode == 1 and ("benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh: the script exited 3 (boom); "
                                  "its output (the last lines below, script.log in the work dir) says why\n") in r.stderr, \
        r.stderr


def test_rehearse_says_a_script_name_that_is_a_folder_is_one(tmp_path):
    """As preflight: "no benchmark script ...; create X" told to create what is there, as a folder."""
    from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

    repo, script = _bench_with_script(tmp_path, "exit 0\n")
    script.unlink()
    script.mkdir()
    rel = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo)
    assert r.returncode == 1 and r.stderr == (f"{rel}: the benchmark script for exp-name 'dsr1_1k1k' is a folder, not a "
                                              "file; put the script in the folder's place (CONTRACTS section 7)\n"), r.stderr


def test_a_failed_rehearsal_is_annotated_under_github_actions(tmp_path):
    """Its problem lines were printed, not emitted: under GITHUB_ACTIONS=true a failed rehearsal gave no
    ::error line, though every other refusal does."""
    from test_rehearse import FSL_ROWS, _bench_with_script, cli, write_rows

    repo, _ = _bench_with_script(tmp_path, "exit 3\n")
    r = cli(["--row-json", str(write_rows(tmp_path, FSL_ROWS[0])), "--work-dir", str(tmp_path / "w")], cwd=repo,
            env={"GITHUB_ACTIONS": "true"})
    rel = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_b300_vllm.sh"
    annotations = [line for line in r.stderr.splitlines() if line.startswith("::error")]
    assert r.returncode == 1 and any(line.startswith(f"::error file={rel}") and "the script exited 3" in line
                                     for line in annotations), r.stderr
