"""SGLang `bench_serving` JSONL: one object per run, appended.

Differs from vLLM's: ``total_throughput`` (not ``total_token_throughput``),
``*_e2e_latency_ms``, a bare ``Infinity`` request rate, ``random_input_len``
/ ``random_output_len`` for the requested lengths, medians only before 2025,
and ``--output-details`` arrays in seconds. Behind a prefill/decode router
``server_info`` is ``{"prefill": [...], "decode": [...]}``, one entry per worker. Two other layouts of
the line (``PACKAGE``, ``FIRST``) are read by their keys' names in this one.
"""

from __future__ import annotations

from sweepgate.core.errors import fail
from sweepgate.results import record as R
from sweepgate.results.formats import vllm
from sweepgate.results.measurement import (Measurement, edited_or_unsupported, number, outputs_short, random_lengths,
                                           refuse_tokenless)
from sweepgate.results.normalize import hub_id

NAMES = {**vllm.LATENCIES, "e2e_latency": R.E2EL}
THROUGHPUTS = {
    "request_throughput": R.REQUEST_THROUGHPUT,
    "output_throughput": R.OUTPUT_THROUGHPUT,
    "input_throughput": R.INPUT_THROUGHPUT,
    "total_throughput": R.TOTAL_TOKEN_THROUGHPUT,
    "total_input_tokens": R.TOTAL_INPUT_TOKENS,
    "total_output_tokens": R.TOTAL_OUTPUT_TOKENS,
    "completed": R.COMPLETED,
    "duration": R.DURATION_S,
    "request_goodput": R.REQUEST_GOODPUT,  # with --goodput SLOs (as of 0.5.23), else absent
    # speculative decoding's tokens per step, null without it: the server's running average (its
    # internal state when the run ended, warm-up included), where vLLM counts the run's own drafts
    "accept_length": R.ACCEPT_LENGTH,
    **vllm.PEAKS,  # as vLLM names and counts them
}


# What a bench_serving line names the run's setup by beyond its point (rate, concurrency, and a random
# dataset's lengths): the user's --tag, the request API (backend) and the prompts' dataset; then the random
# dataset's length spread or ShareGPT's output length cap, each where its dataset is the line's
# (``_setup``); and the server's model and version, as server_info states them.
SETUP = ("tag", "backend", "dataset_name")
RANDOM_SPREAD, SHAREGPT_CAP = "random_range_ratio", "sharegpt_output_len"
SERVER_VERSION = "server_info.version"


def _setup(doc: dict, m: Measurement) -> dict:
    """The line's setup (``Measurement.setup``): ``SETUP``'s values as written (a null one left out), the
    setting of its own dataset, and the server's model (at the key it was read from) and version."""
    keys = SETUP + ((RANDOM_SPREAD,) if random_lengths(m.dataset) else
                    (SHAREGPT_CAP,) if (m.dataset or "").startswith("sharegpt") else ())
    found = {key: doc[key] for key in keys if doc.get(key) is not None}
    server = {m.key(R.MODEL): m.fields.get(R.MODEL), SERVER_VERSION: m.client_version}
    return {**found, **{key: value for key, value in server.items() if value is not None}}


def detect(doc) -> bool:
    return isinstance(doc, dict) and not OFFLINE <= doc.keys() and (
        RETOKENIZED in doc or "median_e2e_latency_ms" in doc or "total_throughput" in doc or _layout(doc) is FIRST)


RETOKENIZED = "total_output_tokens_retokenized"
# The line's other layouts, each learned from SGLang's code: its keys -> their names in the layout read here.
# The sglang.benchmark package's save_results (python/sglang/benchmark/metrics.py) writes BenchmarkMetrics'
# own field names (``**metrics.__dict__``): its token totals without ``_tokens``, the rest as here; it nests
# --output-details' arrays under ``DETAILS``. It is told as this layout is (``detect``): the steady-state report
# beside it has those totals too, but no latency (``foreign.STEADY_STATE``), and is no result.
PACKAGE = {"total_input": "total_input_tokens", "total_output": "total_output_tokens",
           "total_output_retokenized": RETOKENIZED}
# bench_serving's first layout (0.2, 2024) has those totals too, and its latencies in ms without the ``_ms``
# (each a ``metrics.*_ms``), its output token rate per second and its duration in seconds under names of their
# own. The fork of it read here also writes ``completed``, as later versions do; a line without it has no
# request count (``FIRST_WITHOUT_COUNT``).
FIRST = {**PACKAGE, "mean_e2e_latency": "mean_e2e_latency_ms", "median_e2e_latency": "median_e2e_latency_ms",
         "median_ttft": "median_ttft_ms", "median_itl": "median_itl_ms",
         "output_token_throughput": "output_throughput", "benchmark_duration": "duration"}
DETAILS = "details"


def _layout(doc: dict) -> dict:
    """The line's layout, ``FIRST`` or ``PACKAGE`` (its keys -> the names read here): a line with all the
    package's keys is FIRST's where it has one of FIRST's own; else {} (the layout read here)."""
    if not PACKAGE.keys() <= doc.keys():
        return {}
    return FIRST if (FIRST.keys() - PACKAGE.keys()) & doc.keys() else PACKAGE


def _renamed(doc: dict, written: dict) -> dict:
    """``doc`` under the names read here, its layout's keys renamed (a name the line has itself kept) and the
    package's ``details`` arrays lifted beside them; ``written`` gets each name -> the key as the line wrote it,
    which a refusal or warning names and stands at (``details.ttfts``)."""
    layout = _layout(doc)
    names = {key: name for key, name in layout.items() if name not in doc}
    out = {names.get(key, key): value for key, value in doc.items()}
    written.update({name: key for key, name in names.items() if key in doc})
    details = doc.get(DETAILS) if layout is PACKAGE else None
    if isinstance(details, dict):
        lifted = {key: value for key, value in details.items() if key not in out}
        out.update(lifted)
        written.update({key: f"{DETAILS}.{key}" for key in lifted})
    return out


FIRST_WITHOUT_COUNT = ("format: an SGLang bench_serving line in its first layout (0.2, 2024: total_input, median_ttft "
                       "and the other latencies in ms without _ms, output_token_throughput, benchmark_duration) "
                       "without completed: no request count, which a stored run needs")


def _refuse_first_without_count(doc: dict, path: str, line: int) -> None:
    if _layout(doc) is FIRST and "completed" not in doc:
        raise fail(path, line, FIRST_WITHOUT_COUNT,
                   "ingest the line of a later bench_serving, which writes completed, or remove the file")


def _lengths(doc: dict, path: str, line: int) -> tuple[int | None, int | None]:
    """The random dataset's requested lengths; a line without ``dataset_name`` (2024's bench_serving,
    whose default dataset was ShareGPT) carries the random lengths' defaults, not what it sent."""
    if not random_lengths(_dataset(doc)):
        return None, None
    lengths = []
    for key in ("random_input_len", "random_output_len"):
        value = doc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise fail(path, line, f"{key}: expected a whole number of tokens (1 or more), got {value!r}",
                       edited_or_unsupported())
        lengths.append(value)
    return lengths[0], lengths[1]


def _dataset(doc: dict) -> str | None:
    """The prompts' dataset: ``dataset_name``, or ShareGPT for a line without one (2024's bench_serving,
    whose default it was, as ``_lengths`` reads such a line): another workload than a random-length row's."""
    if "dataset_name" not in doc:
        return "sharegpt (no dataset_name: bench_serving's default then)"
    return doc["dataset_name"] if isinstance(doc["dataset_name"], str) else None


MODEL_PATH, SERVED_NAME = "model_path", "served_model_name"


def _model_key(info: dict) -> str:
    """The server_info key that names the run's model: ``model_path``, the weights the server loaded
    (``--model-path``), rather than ``served_model_name``, the name its API answers to, which is that
    path unless ``--served-model-name`` set an alias (``qwen``, ``default``); the alias only where the
    path is a local folder and the alias names a hub repository, or where the file has no path."""
    path, alias = _server_value(info, MODEL_PATH), _server_value(info, SERVED_NAME)
    if path is None or (alias is not None and hub_id(path) is None and hub_id(alias) is not None):
        return SERVED_NAME if alias is not None else MODEL_PATH
    return MODEL_PATH


def _servers(info: dict) -> list[dict]:
    """The server itself, or a PD router's workers (decode first)."""
    workers = [w for role in ("decode", "prefill") if isinstance(info.get(role), list)
               for w in info[role] if isinstance(w, dict)]
    return [info, *workers]


def _server_value(info: dict, key: str, agree: bool = False) -> str | None:
    """``key`` of the server, else of its workers (which must all agree when ``agree``)."""
    values = [v for v in (s.get(key) for s in _servers(info)) if isinstance(v, str)]
    if agree and len(set(values)) > 1:
        return None
    return values[0] if values else None


# bench_serving's backends that ask an embeddings endpoint (its _EMBEDDING_BACKENDS): no tokens generated.
EMBEDDING_BACKENDS = ("sglang-embedding", "vllm-embedding")


def _refuse_embeddings(doc: dict, path: str, line: int) -> None:
    """Refuse a run against an embeddings endpoint (``refuse_tokenless``): bench_serving writes it in its generation
    layout, its output tokens 0 and its TTFT, TPOT and ITL 0 (a mean of nothing), so its backend tells it."""
    backend = doc.get("backend")
    if backend in EMBEDDING_BACKENDS:
        refuse_tokenless(path, line, "an SGLang bench_serving run", backend,
                         "backend (sglang, sglang-oai, sglang-oai-chat, vllm)")


# What every bench_serving line holds, in every version read here (2024's medians-only lines among them):
# the run's token totals, under these names or ``PACKAGE``'s (read as these). A line in its key names without
# one is another script's summary (a router's benchmark over several servers, say): its figures are no
# bench_serving run's.
TOKEN_TOTALS = ("total_input_tokens", "total_output_tokens")
PACKAGE_TOTALS = tuple(key for key, name in PACKAGE.items() if name in TOKEN_TOTALS)  # FIRST's too


def _refuse_other_script(doc: dict, path: str, line: int) -> None:
    missing = [key for key in TOKEN_TOTALS if key not in doc]
    if not missing:
        return
    held = [key for key in PACKAGE if key in doc]  # some of the package's totals (all of them: renamed, not here)
    if held:
        why = (f"with {' and '.join(held)} but without {' or '.join(key for key in PACKAGE if key not in doc)} "
               f"(the sglang.benchmark package and bench_serving 0.2 write {', '.join(list(PACKAGE)[:-1])} and "
               f"{list(PACKAGE)[-1]} together, every other bench_serving {' and '.join(TOKEN_TOTALS)})")
    else:
        why = (f"without {' or '.join(missing)} (every bench_serving line holds its token totals: "
               f"{' and '.join(TOKEN_TOTALS)}, or the sglang.benchmark package's and 0.2's "
               f"{' and '.join(PACKAGE_TOTALS)})")
    raise fail(path, line, f"format: a serving summary in SGLang bench_serving's key names {why}: another "
               "script's output, its figures no bench_serving run's", SERVING_HINT)


def _retokenized_short(doc: dict, m: Measurement, osl: int | None, path: str, written: dict) -> None:
    """A warning where the responses' text re-tokenizes to under SHORT_OUTPUTS of the output tokens the line
    counts: bench_serving took each request's output length from what it asked for where the server gave no
    count (2024's, with --ignore-eos on by default), so a server that ended its responses early leaves the
    count, and the output throughput, at the asked-for length. Not said again where the count itself already
    falls short of the asked-for length (``normalize.short_outputs`` warns of that). Each key is named as the
    line wrote it (``written``)."""
    said = written.get(RETOKENIZED, RETOKENIZED)
    counted, text, done = m.metrics[R.TOTAL_OUTPUT_TOKENS], number(doc, RETOKENIZED, path, m.line, where=said), \
        m.metrics[R.COMPLETED]
    if not done or not outputs_short(text, counted) or (osl and outputs_short(counted, osl * done)):
        return
    m.notes.append(("retokenized-short", f"warning: {said}: the responses' text re-tokenizes to {text:g} "
                    f"tokens, {100 * text / counted:.1f}% of the {counted:g} output tokens the line counts "
                    f"({m.said(R.TOTAL_OUTPUT_TOKENS)}: what the requests asked for, where bench_serving took no count "
                    "from the server), so its output throughput counts tokens never generated; stored as written",
                    "the server ended its responses early (--ignore-eos off, its context limit, an adapter's EOS): "
                    "rerun the point; a tokenizer other than the server's re-tokenizes the text to other counts"))


UNCOUNTED_INPUT = (R.TOTAL_INPUT_TOKENS, R.INPUT_THROUGHPUT, R.TOTAL_TOKEN_THROUGHPUT)


def _uncounted_input(m: Measurement) -> None:
    """A line whose completed requests hold no input token counted none: bench_serving passes no prompts to
    its metrics for a multi-turn run (agentic-trace, generated-shared-prefix with --gsp-num-turns over 1), so
    it writes total_input_tokens and input_throughput 0 and a total_throughput of the output alone. Those
    three are left out, with a warning; the output throughput and latencies are the run's."""
    if not m.metrics.get(R.COMPLETED) or m.metrics.get(R.TOTAL_INPUT_TOKENS) != 0:
        return
    for name in UNCOUNTED_INPUT:
        m.metrics[name] = None
    m.notes.append(("uncounted-input", f"warning: {m.said(R.TOTAL_INPUT_TOKENS)}: 0 over {m.metrics[R.COMPLETED]} "
                    "completed requests, so bench_serving counted no input (it counts none for a multi-turn run); "
                    "stored without input and total token throughput", "the output throughput and latencies are "
                    "stored; benchmark a single-turn dataset for the input throughput"))


def parse(doc: dict, path: str, line: int) -> Measurement:
    _refuse_embeddings(doc, path, line)
    _refuse_first_without_count(doc, path, line)
    written: dict[str, str] = {}  # a name read here -> the key as the line wrote it (another layout's)
    doc = _renamed(doc, written)
    _refuse_other_script(doc, path, line)
    info = doc.get("server_info") if isinstance(doc.get("server_info"), dict) else {}
    version = _server_value(info, "version", agree=True)
    m = Measurement("sglang-bench-serving", "sglang-bench", line, client_version=version, dataset=_dataset(doc))
    m.metrics.update(vllm.latencies(doc, path, line, NAMES, m.notes, m.keys, written))
    vllm.read_throughputs(doc, THROUGHPUTS, m, path, written)
    if m.metrics[R.COMPLETED] is None:
        raise fail(path, line, "completed: missing", "rerun sglang.bench_serving with --output-file")
    _uncounted_input(m)
    vllm.untimed_first_token(doc, m, written)
    vllm.rates_from_counts(m.metrics)  # older layouts leave out rates their counts and duration give
    errors = doc.get("errors")
    m.metrics[R.FAILED] = sum(1 for e in errors if e) if isinstance(errors, list) else None
    m.computed |= vllm._from_arrays(doc, m.metrics, path, line, written)
    vllm.first_token_at_end(m)
    isl, osl = _lengths(doc, path, line)
    _retokenized_short(doc, m, osl, path, written)
    conc = vllm.concurrency(doc.get("max_concurrency"), path, line)
    m.uncapped = vllm.uncapped(doc, conc)  # a 2024 line without the key states nothing
    model_key = _model_key(info)
    m.keys.update({R.CONC: "max_concurrency", R.ISL: "random_input_len", R.OSL: "random_output_len",
                   R.MODEL: f"server_info.{model_key}"})
    m.fields.update({R.MODEL: _server_value(info, model_key),
                     R.CONC: conc,
                     R.ISL: isl, R.OSL: osl, R.REQUEST_RATE: vllm.rate_value(doc.get("request_rate"))})
    m.setup = _setup(doc, m)
    return m


ONE_BATCH = {"run_name", "batch_size", "input_len", "output_len"}
# bench_offline_throughput's line (its --result-filename, result.jsonl by default) has bench_serving's
# total_throughput, but no latencies: the engine driven in-process, every request at once.
OFFLINE = {"successful_requests", "total_latency", "total_throughput"}
SERVING_HINT = "ingest sglang.bench_serving's --output-file JSONL, a serving run at a concurrency"
# The line each script under the SGLang repository's benchmark/ (benchmark/<task>/bench_sglang*.py: gsm8k,
# mmlu, mtbench, ...) appends to its --result-file: a task's question set run through a frontend program,
# its latency in seconds and accuracy or throughput, its settings under "other" (num_questions, parallel).
TASK_SCRIPT = {"task", "num_gpus", "latency", "other"}


# The table bench_offline_throughput prints at its end, its title centred between runs of "=" (the words alone, as a
# grep for them in a README, are no table).
OFFLINE_CONSOLE_NAME = "Offline Throughput Benchmark Result"
OFFLINE_CONSOLE_TITLE = f"= {OFFLINE_CONSOLE_NAME} ="


def refuse_offline_console(text: str, path: str) -> None:
    """Refuse bench_offline_throughput's stdout, its result table anywhere in the text: the engine driven
    in-process, as its JSONL line is (``refuse_one_batch``), and figures rounded for display."""
    if OFFLINE_CONSOLE_TITLE in text:
        raise fail(path, 1, f"format: an SGLang bench_offline_throughput console output (its '{OFFLINE_CONSOLE_NAME}' "
                   "table: the engine's offline throughput, figures rounded for display; no serving latencies or "
                   "concurrency), not a serving result", SERVING_HINT)


def refuse_one_batch(doc, path: str, line: int) -> None:
    """SGLang's bench_one_batch / bench_one_batch_server lines time one static batch, its benchmark
    scripts' lines a task's question set, and bench_offline_throughput's the engine's throughput: no
    requests served at a concurrency, nothing a serving point is judged by."""
    if isinstance(doc, dict) and ONE_BATCH <= doc.keys():
        raise fail(path, line, "format: an SGLang bench_one_batch result (one static batch's latency, no "
                   "serving requests or concurrency)", SERVING_HINT)
    if isinstance(doc, dict) and TASK_SCRIPT <= doc.keys():
        raise fail(path, line, f"format: an SGLang benchmark script's result (benchmark/<task>/bench_sglang*.py's "
                   f"--result-file line, task {doc['task']!r}: a question set's latency in seconds and accuracy or "
                   "throughput, no serving requests at a concurrency)", SERVING_HINT)
    if isinstance(doc, dict) and OFFLINE <= doc.keys():
        raise fail(path, line, "format: an SGLang bench_offline_throughput result (the engine's offline "
                   "throughput, no serving latencies or concurrency)", SERVING_HINT)
