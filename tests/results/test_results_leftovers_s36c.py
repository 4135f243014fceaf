"""s36c: results leftovers of the s35 closing note.

- Two jobs' outputs of the same bytes ingested in separate calls (the first job's in one, the copy's in a later
  one) were stored without a word; in one call they were warned of. The later ingest says it now, in the same
  words, naming the stored run's result the new file repeats.
- An eval score of a run ingested without its matrix row read "(no config key or model)" in `results compare`:
  the model was looked up among the throughput records only. The eval record's own model names it (a Hugging
  Face cache folder as ORG/NAME, as `results show` writes it).
- A GenAI-Perf/AIPerf CSV row of the wrong number of cells was refused at its row alone (``path:18:``); it
  stands at the cell where the row goes wrong (``path:18:40:``).
- A refusal of a value read under a key written with vLLM 0.8's stray colon read ``request_goodput:: negative``;
  such a key is quoted as the output writes it, ``"request_goodput:": negative``, still placed at it.
- An archive of results beside results was looked into only when named like one (``runs.tar.gz``), and in a
  folder of jobs' sidecars it was counted with the helper outputs; a tar archive cut short (a download stopped)
  was not named at all. Archives are told by their bytes, warned of alike in every folder, and listed as they
  stream, so the members before the break are named.

Real outputs (tests/data/results-samples, results-real) and hand-made variants, ingested through the CLI into SQLite.
"""

from __future__ import annotations

import io
import json
import random
import shutil
import tarfile

from helpers import ROOT, ROW, SAMPLES, job, no_ref_said, run_cli, vllm_output, write_job

REAL = ROOT / "tests" / "data" / "results-real"


def _db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'r.db'}"


# 1. the same bytes as a job's output stored by an earlier ingest

JOBS_COPY_FIX = ("check the workflow's steps that write or download outputs: one job's output was copied as another's "
                 "(one $RESULT_FILENAME named twice); rerun the job whose output is not its own")


def test_a_jobs_output_of_the_same_bytes_as_one_stored_before_is_warned_of(tmp_path, capsys):
    db = _db(tmp_path)
    write_job(tmp_path / "a", "c4", vllm_output(4), job(run_id="900"))
    second = write_job(tmp_path / "b", "c4b", vllm_output(4), job(run_id="900", row=dict(ROW, tp=4)))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "a"))
    assert rc == 0 and err == "", (out, err)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "b"))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert err.splitlines() == [
        f"{second}: warning: the same bytes as run 900's result 'c4', stored before; stored under its job "
        f"(c4b.job.json) all the same, but two benchmark runs never write the same bytes; {JOBS_COPY_FIX}"], err
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "b"))  # stored: not again
    assert rc == 0 and "(0 new)" in out and "same bytes" not in err, (out, err)


def test_a_later_runs_job_output_of_stored_bytes_names_that_run(tmp_path, capsys):
    """Another run's job (a later workflow that copied an old output) is told the same, naming the stored run."""
    db = _db(tmp_path)
    write_job(tmp_path / "a", "c4", vllm_output(4), job(run_id="900"))
    second = write_job(tmp_path / "b", "c4", vllm_output(4), job(run_id="901"))
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "a"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "b"))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    assert err.splitlines() == [
        f"{second}: warning: the same bytes as run 900's result 'c4', stored before; stored under its job "
        f"(c4.job.json) all the same, but two benchmark runs never write the same bytes; {JOBS_COPY_FIX}"], err


def test_a_jobs_output_ingested_alone_before_is_said_to_need_nothing(tmp_path, capsys):
    """The same output ingested first without its sidecar (a content-hash run, on no ref), then with it."""
    db = _db(tmp_path)
    output = write_job(tmp_path / "run", "c4", vllm_output(4), job(run_id="900"))
    (tmp_path / "alone").mkdir()
    shutil.copyfile(output, tmp_path / "alone" / "c4.json")
    assert run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "alone" / "c4.json"))[0] == 0
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(tmp_path / "run"))
    assert rc == 0 and "ingested 1 results (1 new)" in out, (out, err)
    (line,) = err.splitlines()
    assert line.startswith(f"{output}: warning: the same bytes as run local-") and line.endswith(
        "'s result 'c4.json', stored before without a job sidecar; stored under its job (c4.job.json) all the same; "
        "nothing to do if it is this job's output ingested alone before: run " + line.split("run ")[1].split("'")[0]
        + " is on no ref and no baseline"), line


# 2. the model of an eval ingested without its matrix row

LM_EVAL = REAL / "lm_eval" / "lmeval0.4.3_asdiv_llama3-8b_limit50_trimmed.json"


def _eval_compared(tmp_path, capsys, doc: dict) -> tuple[str, str]:
    made = tmp_path / "results.json"
    made.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    db = _db(tmp_path)
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", db, str(made))
    assert rc == 0, err
    rc, out, _ = run_cli(capsys, "results", "show", "--db", db, "--json")
    run = json.loads(out)[0]["run-id"]
    rc, table, _ = run_cli(capsys, "results", "compare", "--db", db, "--run", run)
    assert rc == 0, table
    rc, md, _ = run_cli(capsys, "results", "compare", "--db", db, "--run", run, "--markdown")
    assert rc == 0, md
    return table, md


def test_an_eval_ingested_without_its_row_is_named_by_its_own_model(tmp_path, capsys):
    doc = json.loads(LM_EVAL.read_text(encoding="utf-8"))
    assert doc["model_name"] == "meta-llama/Meta-Llama-3-8B-Instruct"
    table, md = _eval_compared(tmp_path, capsys, doc)
    assert "(no config key or model)" not in table + md, table
    (row,) = [line for line in table.splitlines() if "asdiv acc" in line]
    assert row.startswith("meta-llama/Meta-Llama-3-8B-Instruct "), table
    assert "| meta-llama/Meta-Llama-3-8B-Instruct | asdiv acc |" in md, md


def test_an_evals_hub_cache_model_is_named_org_name(tmp_path, capsys):
    doc = json.loads(LM_EVAL.read_text(encoding="utf-8"))
    cached = "/root/.cache/huggingface/hub/models--meta-llama--Meta-Llama-3-8B-Instruct/snapshots/5f0b02c7"
    doc["config"]["model_args"] = f"pretrained={cached}"
    doc["model_name"] = cached
    table, _ = _eval_compared(tmp_path, capsys, doc)
    (row,) = [line for line in table.splitlines() if "asdiv acc" in line]
    assert row.startswith("meta-llama/Meta-Llama-3-8B-Instruct "), table


# 3. a CSV row of the wrong number of cells, at its cell

GENAI_PERF_CSV = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc100.csv"


def _csv_refused(tmp_path, capsys, text: str) -> str:
    made = tmp_path / "profile_export_genai_perf.csv"
    made.write_text(text, encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(made))
    assert rc == 1, (out, err)
    (line,) = err.splitlines()
    return line.replace(str(made), "OUT")


def test_a_csv_row_with_a_cell_too_many_is_refused_at_that_cell(tmp_path, capsys):
    rows = GENAI_PERF_CSV.read_text(encoding="utf-8").split("\n")
    n = next(i for i, row in enumerate(rows) if row.startswith("Time To First Token (ms),"))
    width = len(rows[n])
    rows[n] += ",7"
    line = _csv_refused(tmp_path, capsys, "\n".join(rows))
    assert line.startswith(f"OUT:{n + 1}:{width + 2}: expected 10 cells after a 'Metric,...' header, got 11; "), line


def test_a_csv_row_with_a_cell_too_few_is_refused_where_the_cell_is_missing(tmp_path, capsys):
    rows = GENAI_PERF_CSV.read_text(encoding="utf-8").split("\n")
    n = next(i for i, row in enumerate(rows) if row.startswith("Time To First Token (ms),"))
    rows[n] = rows[n][:rows[n].rindex(",")]
    line = _csv_refused(tmp_path, capsys, "\n".join(rows))
    assert line.startswith(f"OUT:{n + 1}:{len(rows[n]) + 1}: expected 10 cells after a 'Metric,...' header, "
                           "got 9; "), line


# 4. a key written with a stray colon, named as a key

VLLM_0_8 = REAL / "vllm" / "vllm0.8_openai_backend_rate10_and_conc2_arrays_trimmed.json"


def _place(text: str, needle: str) -> str:
    at = text.index(needle)
    return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"


def test_a_refusal_of_a_colon_keys_value_quotes_the_key(tmp_path, capsys):
    doc = json.loads(VLLM_0_8.read_text(encoding="utf-8"))
    doc["request_goodput:"] = -3.5
    text = json.dumps(doc, indent=1)
    line = _csv_refused_json(tmp_path, capsys, text)
    assert line.startswith(f'OUT:{_place(text, chr(34) + "request_goodput:" + chr(34))}: "request_goodput:": '
                           "negative (-3.5); "), line


def test_a_latency_written_under_a_colon_key_is_named_quoted(tmp_path, capsys):
    doc = vllm_output(4)
    doc["p99_ttft_ms:"] = doc.pop("p99_ttft_ms") / 10  # 30 ms: below its median, 100 ms
    text = json.dumps(doc, indent=1)
    line = _csv_refused_json(tmp_path, capsys, text)
    assert line.startswith(f'OUT:{_place(text, chr(34) + "median_ttft_ms" + chr(34))}: median_ttft_ms: 100 ms is '
                           'above "p99_ttft_ms:" (30 ms), '), line


def _csv_refused_json(tmp_path, capsys, text: str) -> str:
    made = tmp_path / "out.json"
    made.write_text(text, encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(made))
    assert rc == 1, (out, err)
    (line,) = err.splitlines()
    return line.replace(str(made), "OUT")


# 5. archives told by their bytes, in every folder, listed as they stream

def _tar_gz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _results_folder(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.json").write_text(json.dumps(vllm_output()), encoding="utf-8")
    return runs


TARRED = {"x/b.json": json.dumps(vllm_output(conc=8)).encode(), "x/c.json": json.dumps(vllm_output(16)).encode()}
TARBALL_SAID = ("warning: a gzip-compressed tar archive of 2 .json/.jsonl/.csv files, not ingested; extract it "
                "(tar -xzf FILE -C DIR) and ingest DIR too")


def test_a_tarball_not_named_like_one_is_told_by_its_bytes(tmp_path, capsys):
    runs = _results_folder(tmp_path)
    (runs / "artifact").write_bytes(_tar_gz(TARRED))  # as a download saved it: no name of its kind
    (runs / "server.log").write_text("started\n", encoding="utf-8")
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 1 results (1 new)"), (out, err)
    assert no_ref_said(err).splitlines() == [f"{runs / 'artifact'}: {TARBALL_SAID}"], err


def test_in_a_folder_of_jobs_sidecars_an_archive_of_results_is_warned_of_as_an_archive(tmp_path, capsys):
    runs = tmp_path / "runs"
    write_job(runs, "r1", vllm_output(), job())
    (runs / "more.tar.gz").write_bytes(_tar_gz(TARRED))
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0 and out.splitlines()[-1].startswith("ingested 1 results (1 new)"), (out, err)
    assert err.splitlines() == [f"{runs / 'more.tar.gz'}: {TARBALL_SAID}"], err
    assert "helper outputs" not in out, out


def test_a_tarball_cut_short_names_the_results_before_the_break(tmp_path, capsys):
    runs = _results_folder(tmp_path)
    big = random.Random(0).randbytes(1 << 20)  # 1 MiB gzip cannot shrink: the cut falls after the two results
    whole = _tar_gz({**TARRED, "x/logs/server.log": big})
    (runs / "more.tar.gz").write_bytes(whole[:len(whole) * 3 // 4])
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", _db(tmp_path), str(runs))
    assert rc == 0, (out, err)
    assert no_ref_said(err).splitlines() == [f"{runs / 'more.tar.gz'}: {TARBALL_SAID}"], err
