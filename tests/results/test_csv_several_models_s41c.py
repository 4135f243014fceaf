"""s41c: an AIPerf or GenAI-Perf CSV export of a run over several models is refused as its JSON export is.

The CSV carries no model (its tables are the figures alone), so s40d's refusal of a run over several models
(``genai-perf profile -m a -m b``, ``aiperf profile --model a --model b``: one set of figures pooled over all
of them) reached only the JSON export: the CSV of the same run, ingested on its own file path beside that JSON
export, was stored as one model's measurement (its row's, or none). The JSON export of its name beside it says
which models the run was over (as it says whether an AIPerf run finished, ``aiperf_csv.completion``): the CSV is
now refused in one line at the JSON export's models, naming the CSV. A CSV with no JSON export beside it cannot
be told and is stored as before.

Each pair is real (tests/data/results-samples/SOURCES.tsv), a second model name added to the JSON export.
"""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import SAMPLES, run_cli, show_json
from test_several_models_s40d import _first_model, _with_models

PAIRS = [(SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1", "GenAI-Perf"),
         (SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1", "AIPerf")]
OTHER = "meta/llama-3.1-8b-instruct-lora-a"


def _pair(tmp_path, stem, models: list[str] | None):
    """The CSV export (and, unless ``models`` is None, its JSON export naming ``models``) in a folder of their own."""
    csv = tmp_path / "profile_export.csv"
    shutil.copyfile(stem.with_name(stem.name + ".csv"), csv)
    if models is None:
        return csv, None, None
    doc, key, at_text = _with_models(stem.with_name(stem.name + ".json"), models)
    export = csv.with_suffix(".json")
    export.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return csv, export, (key, at_text)


@pytest.mark.parametrize("stem, client", PAIRS, ids=["genai-perf", "aiperf"])
def test_a_csv_export_whose_json_export_names_two_models_is_refused_in_one_line(capsys, tmp_path, stem, client):
    first = _first_model(json.loads(stem.with_name(stem.name + ".json").read_text(encoding="utf-8")))
    csv, export, (key, at_text) = _pair(tmp_path, stem, [first, OTHER])
    db = tmp_path / "r.db"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(csv))
    text = export.read_text(encoding="utf-8")
    at = text.index(at_text)
    place = f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"
    assert rc == 1 and err.splitlines() == [
        f"{export}:{place}: {key}: 2 models ({first}, {OTHER}): {client} sends the run's requests to all of them "
        f"and exports one set of figures over them all, so they are no one model's, nor are its CSV export "
        f"{csv}'s; benchmark each model in a run of its own"], err
    assert not db.exists()


@pytest.mark.parametrize("stem, client", PAIRS, ids=["genai-perf", "aiperf"])
def test_a_csv_export_beside_its_json_export_of_one_model_is_stored_s(capsys, tmp_path, stem, client):
    first = _first_model(json.loads(stem.with_name(stem.name + ".json").read_text(encoding="utf-8")))
    csv, _, _ = _pair(tmp_path, stem, [first])
    db = f"sqlite:///{tmp_path / 'r.db'}"
    rc, _, err = run_cli(capsys, "results", "ingest", "--db", db, str(csv))
    assert rc == 0, err
    (rec,) = show_json(capsys, db)
    assert rec["source-format"].endswith("csv")
