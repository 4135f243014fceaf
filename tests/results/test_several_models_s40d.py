"""s40d: a GenAI-Perf or AIPerf export of a run over several models is refused, not stored as its first model's.

``genai-perf profile -m a -m b`` (``input_config.model: [a, b]``, round-robin or random by
``model_selection_strategy``), ``aiperf profile --model a --model b`` (``input_config.endpoint.model_names``)
and AIPerf 0.10+'s ``models.items`` send the run's requests to all the models named; the export holds one
set of figures over all of them (the metric objects at its top, no figure per model). Ingest stored it as a
measurement of the first model alone, under that model's point, so its figures (pooled over the others)
stood in that model's history. It is now refused in one line at the models' key, whatever the other keys.

Each export is a real one (tests/data/results-samples/SOURCES.tsv, tests/data/results-real/SOURCES.tsv) with a
second model name added where its version writes the names; the name added is our own."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT, SAMPLES, run_cli, show_json

REAL = ROOT / "tests" / "data" / "results-real" / "aiperf"
GENAI_PERF = SAMPLES / "aiperf" / "genaiperf_nim-llama3-8b_trtllm_isl200_osl50_conc1.json"  # input_config.model
AIPERF_08 = SAMPLES / "aiperf" / "aiperf_kimik2.7_fp4_mi355x_tp4_conc1.json"  # input_config.endpoint.model_names
AIPERF_010 = REAL / "aiperf0.10_qwen3.6-nvfp4_rtx5090_agent_c16.json"  # input_config.models.items


def _with_models(source, names: list[str]) -> tuple[dict, str, str]:
    """(the export, the dotted key its names stand at, the text the refusal is placed at or in)."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    cfg = doc["input_config"]
    if "endpoint" in cfg and isinstance(cfg["endpoint"], dict) and "model_names" in cfg["endpoint"]:
        cfg["endpoint"]["model_names"] = names
        return doc, "input_config.endpoint.model_names", '"model_names": ['
    if "model" in cfg:
        cfg["model"] = names
        return doc, "input_config.model", '"model": ['
    cfg["models"]["items"] = [{"name": n} for n in names]
    return doc, "input_config.models.items.name", '"items": ['


def _ingest(capsys, tmp_path, doc: dict) -> tuple[int, str, str, str]:
    path = tmp_path / "profile_export.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    db = tmp_path / "r.db"
    rc, out, err = run_cli(capsys, "results", "ingest", "--db", f"sqlite:///{db}", str(path))
    return rc, err, path.read_text(encoding="utf-8"), str(path)


@pytest.mark.parametrize("source, client", [(GENAI_PERF, "GenAI-Perf"), (AIPERF_08, "AIPerf"), (AIPERF_010, "AIPerf")],
                         ids=["genai-perf", "aiperf-0.8", "aiperf-0.10"])
def test_an_export_over_two_models_is_refused_in_one_line_at_its_models(capsys, tmp_path, source, client):
    first = json.loads(source.read_text(encoding="utf-8"))
    doc, key, at_text = _with_models(source, [_first_model(first), "meta/llama-3.1-8b-instruct-lora-a"])
    rc, err, text, path = _ingest(capsys, tmp_path, doc)
    at = text.index(at_text)
    at = text.index('"name"', at) if key.endswith(".name") else at  # the first item's name
    place = f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"
    names = ", ".join((_first_model(first), "meta/llama-3.1-8b-instruct-lora-a"))
    assert rc == 1 and err.splitlines() == [
        f"{path}:{place}: {key}: 2 models ({names}): {client} sends the run's requests to all of them and "
        "exports one set of figures over them all, so they are no one model's; benchmark each model in a run "
        "of its own"], err
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize("source", [GENAI_PERF, AIPERF_08, AIPERF_010], ids=["genai-perf", "aiperf-0.8", "aiperf-0.10"])
def test_an_export_naming_its_one_model_twice_is_stored_as_that_model_s(capsys, tmp_path, source):
    first = json.loads(source.read_text(encoding="utf-8"))
    doc, _, _ = _with_models(source, [_first_model(first)] * 2)
    rc, err, _, _ = _ingest(capsys, tmp_path, doc)
    assert rc == 0, err
    (rec,) = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    assert rec["model"] == _first_model(first)


@pytest.mark.parametrize("source", [GENAI_PERF, AIPERF_08, AIPERF_010], ids=["genai-perf", "aiperf-0.8", "aiperf-0.10"])
def test_the_real_export_of_one_model_is_stored_as_that_model_s(capsys, tmp_path, source):
    doc = json.loads(source.read_text(encoding="utf-8"))
    rc, err, _, _ = _ingest(capsys, tmp_path, doc)
    assert rc == 0, err
    (rec,) = show_json(capsys, f"sqlite:///{tmp_path / 'r.db'}")
    assert rec["model"] == _first_model(doc)


def _first_model(doc: dict) -> str:
    cfg = doc["input_config"]
    endpoint = cfg.get("endpoint") if isinstance(cfg.get("endpoint"), dict) else {}
    names = endpoint.get("model_names") or cfg.get("model") or [i["name"] for i in cfg["models"]["items"]]
    return names[0]
