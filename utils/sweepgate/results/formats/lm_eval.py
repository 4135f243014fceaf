"""lm-evaluation-harness results JSON.

Scores sit under ``results[task]`` as ``"<metric>,<filter>"`` keys with a
matching ``"<metric>_stderr,<filter>"``; stderr may be the string ``"N/A"``
(one-sample runs), and a score null where the task has none (lmms-eval's submission-only
tasks: ``NO_SCORE_RULE``). ``n-samples[task].effective`` says how many samples counted; a group has
none of its own, so its count is its subtasks' (``group_subtasks``, groups nested) added up.
lm-eval 0.3 wrote bare ``"<metric>"`` / ``"<metric>_stderr"`` keys (no filter):
those are read as filter ``none``, 0.4's name for "no filter".
"""

from __future__ import annotations

import hashlib
import math
import re

from sweepgate.core.errors import fail
from sweepgate.results import record as R
from sweepgate.results.measurement import Measurement, unix_time


# InferenceX's eval adapters (its Kimi and MiniMax vendor verifiers, BFCL) write their scores in lm-eval's
# layout under this marker, InferenceX's own sign of an eval result beside lm_eval_version; one that could
# not run or finish says so in "integration_error" ({type, message}) over a placeholder score of 0.0.
RESULT_FORMAT, INFERENCEX_EVAL = "result_format", "inferencex-eval-v1"
INTEGRATION_ERROR = "integration_error"


def detect(doc) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("results"), dict) and (
        "versions" in doc or "n-shot" in doc or "configs" in doc or _is_adapter_result(doc))


def _task_scores(value) -> bool:
    """Whether ``value`` is one task's scores as lm-eval 0.4+ writes them: ``"<metric>,<filter>"`` keys,
    a number (or "N/A") at each, beside its alias and name."""
    if not isinstance(value, dict):
        return False
    scored = [key for key in value if isinstance(key, str) and "," in key]
    return bool(scored) and all(isinstance(value[key], (int, float, str)) or value[key] is None for key in scored) \
        and all(key in scored or key in NOT_SCORES for key in value)


# What to ingest in place of lm-eval's scores seen anywhere but in its results file.
RESULTS_FILE_HINT = "ingest the results_<time>.json lm_eval wrote under --output_path, or remove the file"
# The table lm_eval prints at a run's end (its make_table), kept from its stdout or as a Markdown file: a line that
# starts a pipe table whose first cells are "Tasks" (lm-eval 0.3's "Task", or the "Groups" table's) and "Version",
# each padded with as many blanks as the rows' names need. Searched for from its literal "Version" cell (in C, as a
# long log needs), what stands before it on its line then held to the first cell.
PRINTED_VERSION_CELL = re.compile(r"Version[ \t]*\|")
PRINTED_FIRST_CELL = re.compile(r"\|[ \t]*(?:Tasks?|Groups)[ \t]*\|[ \t]*")


def refuse_printed_table(text: str, path: str) -> None:
    """Refuse lm-eval's printed results table, wherever it stands in a text (after its log lines), at its header's
    line: the scores rounded for display without the run's sample counts, model and settings. Return for any other
    text."""
    found = PRINTED_VERSION_CELL.search(text)
    while found:
        start = text.rfind("\n", 0, found.start()) + 1
        if PRINTED_FIRST_CELL.fullmatch(text, start, found.start()):
            raise fail(path, text.count("\n", 0, start) + 1, "format: lm-eval's printed results table "
                       "('|Tasks|Version|...', as lm_eval prints it at a run's end: scores rounded for display, no "
                       "sample counts, model or settings), not its results file", RESULTS_FILE_HINT)
        found = PRINTED_VERSION_CELL.search(text, found.end())


def refuse_scores_alone(doc, path: str, line: int) -> None:
    """Refuse lm-eval's task scores without the file around them: its ``results`` block copied out, as
    model cards and READMEs show it, alone or under "results"; kept under "results" by another tool beside
    keys of its own (an eval wrapper's summary); or under "all" with each task again beside it (the digest a
    Hugging Face details dataset's card shows). The run's model, settings, versions and sample counts are not
    stated, so no eval of it can be stored or compared. Return for anything else."""
    block, where = _scores_block(doc)
    if not (isinstance(block, dict) and block and all(_task_scores(v) for v in block.values())):
        return
    names = f"{', '.join(list(block)[:3])}{', ...' if len(block) > 3 else ''}"
    raise fail(path, line, f"format: lm-eval's task scores {where} ({names}: a results block without the configs, "
               "versions and n-samples lm-eval writes beside it), not its results file", RESULTS_FILE_HINT)


def _scores_block(doc) -> tuple[object, str]:
    """(what may be lm-eval's task scores in ``doc``, where they are, in words): the ``results`` block of a
    document of nothing else, or beside another tool's own keys (which are named); the block under "all" where
    every other key is a task's scores again; else ``doc`` itself."""
    if not isinstance(doc, dict):
        return doc, "alone"
    results, every = doc.get("results"), doc.get("all")
    if isinstance(results, dict) and doc.keys() != {"results"}:
        others = [key for key in doc if key != "results"]
        return results, (f"under \"results\" beside another tool's keys {', '.join(others[:3])}"
                         f"{', ...' if len(others) > 3 else ''}")
    if isinstance(results, dict):
        return results, "alone"
    if isinstance(every, dict) and all(_task_scores(value) for key, value in doc.items() if key != "all"):
        return every, "under \"all\" with each task again beside it, as a Hugging Face details dataset's card shows them"
    return doc, "alone"


def _is_adapter_result(doc: dict) -> bool:
    return doc.get(RESULT_FORMAT) == INFERENCEX_EVAL


def _integration_error(doc: dict, m: Measurement) -> bool:
    """Whether the eval adapter says its eval did not run or finish (InferenceX's ``integration_error``):
    its scores are placeholders, so none is kept, and the job is stored as failed, with a warning."""
    error = doc.get(INTEGRATION_ERROR)
    if not isinstance(error, dict):
        return False
    m.cancelled, m.evals = True, []
    m.notes.append(("eval-integration-error", f"warning: {INTEGRATION_ERROR}: the eval did not complete "
                    f"({error.get('type')}: {error.get('message')}); its placeholder scores are not stored, "
                    "the job is stored as failed", "check the eval job's log, fix the endpoint or adapter and rerun"))
    return True


def _adapter_stderrs(doc: dict, evals: list[dict]) -> None:
    """InferenceX's adapters write each score's stderr as a fixed 0.0, no measurement: read as one, any
    change of a score would be beyond noise. Their scores are pass rates (passed / effective cases), so
    such a stderr becomes the one lm-eval gives a mean of 0/1 answers, sqrt(p(1-p)/(n-1)); None (not
    judged) for a score that is no rate or a count below two."""
    if not _is_adapter_result(doc):
        return
    for entry in evals:
        p, n = entry[R.EVAL_VALUE], entry[R.EVAL_SAMPLES]
        if entry[R.EVAL_STDERR] != 0:
            continue
        rate = 0 <= p <= 1 and isinstance(n, int) and not isinstance(n, bool) and n >= 2
        entry[R.EVAL_STDERR] = math.sqrt(p * (1 - p) / (n - 1)) if rate else None


NO_STDERR = "N/A"  # what lm-eval writes where it has no stderr (one sample; a metric without one)
# lm-eval's own non-finite values (JSON NaN/Infinity: a mean absolute error over answers it could
# not parse is inf, its stderr NaN; a real 0.4.8 file of 12 tasks had one, hunt 10). No editor writes them.
NONFINITE_HINT = "check the task's answers (lm_eval --log_samples) for ones its metric could not score"


def _stderr(scores: dict, key: str, task: str, path: str, notes: list) -> float | None:
    """A score's stderr: None when lm-eval wrote "N/A" or none, or NaN (lm-eval's own, when it could
    not compute one: noted, since the score is then never judged); anything else but a finite number
    >= 0 is refused, as a bad score is (a stored null would read as lm-eval's "N/A")."""
    value = scores.get(key, NO_STDERR)
    if value == NO_STDERR:
        return None
    if isinstance(value, float) and math.isnan(value):
        notes.append(("eval-no-stderr", f"warning: results.{task}.{key}: lm-eval wrote NaN; the score is "
                      "stored without a standard error, so it is not judged", NONFINITE_HINT))
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise fail(path, 0, f"results.{task}.{key}: expected a standard error (a finite number >= 0, or "
                   f"lm-eval's {NO_STDERR!r}), got {value!r}", "the results file was edited or the eval did not finish")
    return value


# ``lm_eval --log_samples`` writes samples_<task>_<time>.jsonl beside the results JSON, one line per
# document (0.4.0-0.4.1: one JSON array of them): each answer and its scores, not a result of its own.
SAMPLE_KEYS = frozenset({"doc_id", "resps", "filtered_resps"})


def is_samples_log(docs: list[tuple[int, object]]) -> bool:
    """Whether a file's documents are lm-eval's per-sample log (never a results file)."""
    items = docs[0][1] if len(docs) == 1 and isinstance(docs[0][1], list) else [d for _, d in docs]
    return bool(items) and all(isinstance(d, dict) and SAMPLE_KEYS <= d.keys() for d in items)


# The log's name (``samples_gsm8k_2025-01-01T00-00-00.jsonl``) and how its text starts: each sample's
# ``doc_id`` first, as lm-eval writes them; for a compressed log (``.jsonl.gz``), of which only the first
# bytes are decompressed to know it (s35h)
SAMPLES_NAME = re.compile(r"samples_.+\.jsonl?", re.IGNORECASE)
SAMPLES_START = re.compile(rb'\s*\[?\s*\{\s*"doc_id"\s*:')


def is_samples_log_start(name: str, head: bytes | None) -> bool:
    """Whether a file named ``name`` whose text starts with ``head`` is lm-eval's samples log (``head`` None:
    its text could not be looked at, a zstd-compressed log, so its name alone says it)."""
    return SAMPLES_NAME.fullmatch(name) is not None and (head is None or SAMPLES_START.match(head) is not None)


# sae_steered_beta names its base model base_name; it and hf's `steered` model change it by a
# steering vector file (csv_path, steer_path), whose scores are no more the base model's than an adapter's
MODEL_ARGS = ("pretrained", "model", "base_name")
ADAPTER_ARGS = ("peft", "lora_local_path", "steer_path", "csv_path")  # hf's and vllm's adapter, a steering vector


def _model_args(config: dict) -> dict:
    """``model_args`` as a dict: lm-eval writes the command line's ``k=v,k=v`` or (newer) a dict."""
    args = config.get("model_args")
    if isinstance(args, dict):
        return {str(k): str(v).strip() for k, v in args.items() if v not in (None, "", False)}
    out = {}
    for part in args.split(",") if isinstance(args, str) else ():
        name, _, value = part.partition("=")
        if value.strip():
            out[name.strip()] = value.strip()
    return out


def _model(doc: dict) -> str | None:
    """The model evaluated: model_args' model, with its adapter when one was loaded (an adapter's
    scores are not the base model's), else ``model_name``."""
    args = _model_args(doc.get("config") if isinstance(doc.get("config"), dict) else {})
    base = next((args[k] for k in MODEL_ARGS if k in args), None)
    adapter = next((args[k] for k in ADAPTER_ARGS if k in args), None)
    if base:
        return f"{base}{R.WITH_ADAPTER}{adapter}" if adapter else base
    return doc.get("model_name") if isinstance(doc.get("model_name"), str) else None


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


NO_FILTER = "none"  # lm-eval 0.4's filter name for unfiltered scores


# What lm-eval writes beside a task's scores: its display name, and since 2025 its name and sample counts
# (a group without aggregate_metric_list is {"alias", "name"} alone, no score of its own)
NOT_SCORES = frozenset({"alias", "name", "sample_len", "sample_count", "samples"})


# A score's standard error is "<metric>_stderr"; lmms-eval (lm-eval's multimodal fork, which writes its
# results layout) adds two more beside it, "<metric>_stderr_clt" and "<metric>_stderr_clustered", often
# "N/A" and on the per-sample scale, not the score's (MME's 1548-point score beside a CLT stderr of 0.008).
# None is a score; the stderr kept is "<metric>_stderr" (``_stderr_key``).
STDERR = "_stderr"


def _is_stderr(metric: str) -> bool:
    return metric.endswith(STDERR) or f"{STDERR}_" in metric


def _split(key: str, bare: bool) -> tuple[str, str] | None:
    """``"acc,none"`` -> (acc, none); in a 0.3 task (``bare``) ``"acc"`` -> (acc, none)."""
    metric, sep, flt = key.partition(",")
    if _is_stderr(metric) or key in NOT_SCORES or not (sep or bare) or not key.strip():
        return None  # a blank key: lm-eval's " ": " " for a group it reports no aggregate of
    return metric, (flt if sep else NO_FILTER)


def _stderr_key(metric: str, flt: str, bare: bool) -> str:
    return f"{metric}{STDERR}" if bare else f"{metric}{STDERR},{flt}"


# lm-eval's placeholder metric: `--predict_only` (and a task scored outside lm-eval) reports it, its
# aggregation always 999 (lm_eval/api/metrics.py, bypass_agg). No score of the model's answers.
BYPASS = "bypass"
BYPASS_RULE = "eval-bypass"
BYPASS_HINT = "rerun the eval without --predict_only, or score its samples and ingest a results file with the scores"


# A score of null is one the task's aggregation gave none of: lmms-eval's submission-only tasks (EgoSchema, and
# others whose answers only the benchmark's own server scores) aggregate by writing the answers to a submission
# file and return nothing, so lmms-eval writes "submission,none": null (its stderr "N/A"). No score: the task
# is left out with one warning, the file's other tasks stored; a file with no other score is refused.
NO_SCORE_RULE = "eval-no-score"
NO_SCORE_HINT = ("score the task's submission file on its benchmark's own server (sweepgate stores no score for "
                 "it), or leave the task out of the eval")


# lm-eval's long-context tasks (RULER's 13, babilong) name a score by the context length it was measured at ("4096",
# "8192", ...): each sample scores -1 at every length but its own, and a length no sample had aggregates to -1
# (lm_eval/tasks/ruler/common_utils.py, aggregate_metrics: "we don't have any samples with this length"), so a run at
# 8192 alone writes "4096,none": -1 beside its score. No score of any answer: such a length is left out, said in one
# warning per file; a file of nothing else is refused. A -1 of any other metric (an MCC, a correlation) is a score.
LENGTH_NOT_RUN = -1
LENGTH_NOT_RUN_RULE = "eval-length-not-run"
LENGTH_NOT_RUN_HINT = ("nothing to do for the lengths the eval was not asked to run; to score one, rerun with it in "
                       "--metadata max_seq_lengths")


def _length_not_run(metric: str, value) -> bool:
    """Whether ``value`` of ``metric`` is lm-eval's mark of a context length no sample of the task had: a metric named
    by a whole number of tokens, its value exactly -1."""
    return metric.isdigit() and not isinstance(value, bool) and value == LENGTH_NOT_RUN


def _lengths_not_run(doc: dict, notes: list) -> list[tuple[str, str]]:
    """The (task, key) of every length not run in ``doc``'s results, said in one warning (``LENGTH_NOT_RUN_RULE``)."""
    found = [(str(task), key) for task, scores in doc["results"].items() if isinstance(scores, dict)
             for key, value in scores.items() if (split := _split(key, _bare(scores))) is not None
             and _length_not_run(split[0], value)]
    if found:
        lengths = sorted({_split(key, True)[0] for _, key in found}, key=int)
        tasks = list(dict.fromkeys(task for task, _ in found))
        named = ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if tasks[3:] else "")
        notes.append((LENGTH_NOT_RUN_RULE, f"warning: results.{found[0][0]}.{found[0][1]}: {LENGTH_NOT_RUN}, lm-eval's "
                      f"mark of a context length no sample had (length{'s' * (len(lengths) > 1)} "
                      f"{', '.join(lengths)} in {named}): no score; left out, the file's other scores are stored",
                      LENGTH_NOT_RUN_HINT))
    return found


def _bare(scores: dict) -> bool:
    """Whether a task's ``scores`` are lm-eval 0.3's, keys without a filter."""
    return not any("," in key for key in scores)


def _null_scores(scores: dict) -> list[str]:
    """The keys of a task's scores that are null (``NO_SCORE_RULE``)."""
    bare = _bare(scores)
    return [key for key, value in scores.items() if value is None and _split(key, bare) is not None]


def _no_score(task: str, keys: list[str], notes: list) -> None:
    """The one warning of a task's null scores (``keys``)."""
    more = f" (and {', '.join(keys[1:])})" if keys[1:] else ""
    notes.append((NO_SCORE_RULE, f"warning: results.{task}.{keys[0]}: null{more}, no score (lmms-eval writes a "
                  "submission-only task's so: its answers went to a submission file for the benchmark's server to "
                  "score); left out, the file's other scores are stored", NO_SCORE_HINT))


# A group lm-eval aggregates nothing of: its config names no ``aggregate_metric_list`` (the Open LLM Leaderboard's
# leaderboard_musr), so its ``results`` entry holds no score, only {" ": " "} (0.4.x) or its alias and name (2025 on).
# Its subtasks' scores are stored, each compared alone; lm-eval chose no aggregate, so none is made up (a mean over
# subtasks of other sizes and metrics is no score lm-eval gives). Said in one warning line per file (s48b).
GROUP_NO_SCORE_RULE = "eval-group-no-score"
GROUP_NO_SCORE_HINT = ("to compare the group as one score, name an aggregate_metric_list in its group config and run "
                       "the eval again")


def _scoreless_groups(doc: dict, notes: list) -> None:
    """The one warning of the groups in ``doc``'s results with no score of their own (``GROUP_NO_SCORE_RULE``): a
    results entry with no score key (nor a null one) that ``group_subtasks`` lists subtasks of."""
    members, groups = _dict(doc.get("group_subtasks")), []
    for task, scores in doc["results"].items():
        subtasks = members.get(task)
        if isinstance(scores, dict) and isinstance(subtasks, list) and subtasks \
                and not any(_split(key, _bare(scores)) for key in scores):
            groups.append((str(task), len(subtasks)))
    if not groups:
        return
    (first, n), *more = groups
    named = [task for task, _ in more[:5]] + ([f"{len(more) - 5} more"] if more[5:] else [])
    others = f"as {'are' if more[1:] else 'is'} {', '.join(named)}; " if more else ""
    notes.append((GROUP_NO_SCORE_RULE, f"warning: results.{first}: a group of {n} subtask{'s' * (n != 1)} with no "
                  f"score of its own ({others}lm-eval aggregates a group only where its config names an "
                  f"aggregate_metric_list); {'their' if more else 'its'} subtasks' scores are stored, each compared alone",
                  GROUP_NO_SCORE_HINT))


def _task_evals(task: str, scores: dict, samples, path: str, directions: dict, notes: list) -> list[dict]:
    evals, bare, unscored = [], _bare(scores), _null_scores(scores)
    for key, value in scores.items():
        split = _split(key, bare)
        if split is None or key in unscored:
            continue
        metric, flt = split
        if _length_not_run(metric, value):
            continue  # said once per file (``_lengths_not_run``)
        if metric == BYPASS:
            notes.append((BYPASS_RULE, f"warning: results.{task}.{key}: lm-eval's placeholder ({value!r}, "
                          "written by --predict_only), no score; left out", BYPASS_HINT))
            continue
        if isinstance(value, float) and not math.isfinite(value):
            notes.append(("eval-not-a-score", f"warning: results.{task}.{key}: lm-eval wrote {value!r}, no "
                          "score; left out, the file's other scores are stored", NONFINITE_HINT))
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(path, 0, f"results.{task}.{key}: expected a finite number, got {value!r}",
                       "the results file was edited or the eval did not finish")
        entry = {R.EVAL_TASK: task, R.EVAL_METRIC: metric, R.EVAL_FILTER: flt, R.EVAL_VALUE: value,
                 R.EVAL_STDERR: _stderr(scores, _stderr_key(metric, flt, bare), task, path, notes),
                 R.EVAL_SAMPLES: samples}
        if isinstance(directions.get(metric), bool):
            entry[R.EVAL_HIGHER] = directions[metric]
        evals.append(entry)
    if unscored:
        _no_score(task, unscored, notes)
    return evals


def _samples(task: str, n_samples: dict, subtasks: dict, seen: set):
    """How many samples a task's scores cover: its ``n-samples`` entry, else (a group) the sum of its
    subtasks' counts; None when any of them is unknown (or the groups loop)."""
    counts = n_samples.get(task)
    if isinstance(counts, dict):
        return counts.get("effective")
    members = subtasks.get(task)
    if not isinstance(members, list) or not members or task in seen:
        return None
    seen.add(task)
    each = [_samples(str(sub), n_samples, subtasks, seen) for sub in members]
    seen.discard(task)
    if any(isinstance(n, bool) or not isinstance(n, int) for n in each):
        return None
    return sum(each)


def _count(value) -> int | None:
    """A few-shot count as lm-eval writes one (a whole number >= 0), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _shots(task: str, doc: dict, seen: set):
    """A task's few-shot count: its ``n-shot`` entry (lm-eval 0.4), else its config's ``num_fewshot``, else (a group,
    which has neither) the count every one of its subtasks shares, else the run's ``config.num_fewshot`` (0.3: one
    for every task); None when unknown or the subtasks' differ."""
    for count in (_dict(doc.get("n-shot")).get(task), _dict(_dict(doc.get("configs")).get(task)).get("num_fewshot")):
        if _count(count) is not None:
            return count
    members = _dict(doc.get("group_subtasks")).get(task)
    if isinstance(members, list) and members and task not in seen:
        seen.add(task)
        each = {_shots(str(sub), doc, seen) for sub in members}
        seen.discard(task)
        return each.pop() if len(each) == 1 else None
    return _count(_dict(doc.get("config")).get("num_fewshot"))


def _task_version(task: str, doc: dict) -> float | str | None:
    """A task's version as its file's ``versions`` states it: a number (lm-eval 0.4's 3.0, a group's 2, 0.3's 0) or
    a name (0.4.0's "Yaml"); None where it states none (absent, null, or "N/A", a group's without one)."""
    value = _dict(doc.get("versions")).get(task)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return value if isinstance(value, str) and value.strip() and value != "N/A" else None


def _limit(doc: dict) -> tuple[bool, float | None]:
    """(whether the file states the run's --limit, its value): lm-eval's ``config.limit`` (null: none; a count, or
    below 1 a fraction of each task); not stated where there is no config or its limit is no such value."""
    config = doc.get("config")
    if not isinstance(config, dict) or "limit" not in config:
        return False, None
    value = config["limit"]
    if value is None:
        return True, None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return ok, (value if ok else None)


_SHA256 = re.compile(r"[0-9a-f]{64}")


def _text_sha(doc: dict, key: str) -> tuple[bool, str | None]:
    """(whether the file states ``key``, a text lm-eval applied, the text's SHA-256 as ``<key>_sha`` gives it, else
    as lm-eval computes it): null or "" is none; not stated where the key is absent or no text."""
    if key not in doc:
        return False, None
    text = doc[key]
    if text is None or text == "":
        return True, None
    if not isinstance(text, str):
        return False, None
    sha = doc.get(f"{key}_sha")
    return True, sha if isinstance(sha, str) and _SHA256.fullmatch(sha) else hashlib.sha256(text.encode()).hexdigest()


def _prompting(doc: dict) -> dict:
    """How the run put its prompts to the model (R.EVAL_MULTITURN, R.EVAL_CHAT_TEMPLATE, R.EVAL_SYSTEM), of what the
    file states. A chat template lm-eval applied without its text (``chat_template`` "", an API model's: the server
    applies its own) is "", applied but not named; null, none applied."""
    out: dict = {}
    if isinstance(doc.get("fewshot_as_multiturn"), bool):
        out[R.EVAL_MULTITURN] = doc["fewshot_as_multiturn"]
    if doc.get("chat_template") == "":
        out[R.EVAL_CHAT_TEMPLATE] = ""
    else:
        stated, sha = _text_sha(doc, "chat_template")
        if stated:
            out[R.EVAL_CHAT_TEMPLATE] = sha
    stated, sha = _text_sha(doc, "system_instruction")
    if stated:
        out[R.EVAL_SYSTEM] = sha
    return out


def _run_settings(doc: dict, evals: list[dict]) -> None:
    """Each score's few-shot count and task version, the run's --limit (R.EVAL_SHOTS, R.EVAL_TASK_VERSION,
    R.EVAL_LIMIT) and how it prompted the model (``_prompting``), where the file says them: a score is compared only with a baseline's run alike
    (``evals.incomparable``)."""
    stated, limit = _limit(doc)
    prompting = _prompting(doc)
    for entry in evals:
        if (shots := _shots(entry[R.EVAL_TASK], doc, set())) is not None:
            entry[R.EVAL_SHOTS] = shots
        if (version := _task_version(entry[R.EVAL_TASK], doc)) is not None:
            entry[R.EVAL_TASK_VERSION] = version
        if stated:
            entry[R.EVAL_LIMIT] = limit
        entry.update(prompting)


def _times(doc: dict) -> tuple[str | None, str | None]:
    """(started, finished) in UTC ISO 8601: lm-eval's ``date`` is the Unix time the evaluation
    started (before 2020 it is no such time); ``total_evaluation_time_seconds`` (a string in 0.4)
    how long it took."""
    start, took = doc.get("date"), doc.get("total_evaluation_time_seconds")
    started = unix_time(start)
    if started is None:
        return None, None
    try:
        took = math.nan if isinstance(took, bool) else float(took)
    except (TypeError, ValueError):
        took = math.nan
    return started, (unix_time(start + took) if math.isfinite(took) and took >= 0 else None)


# lmms-eval writes no lm_eval_version but its own lmms_eval_version: "<branch>@<commit>" that git gives it
# (lmms_eval/utils.py, get_lmms_eval_version_string: the branch, and `git describe --always` cut to 8 characters,
# "jetson-benchmark@v0.6-249"; 0.7.3 asks its own checkout), "unknown@unknown" where git has none (a pip install).
# Stored after the fork's name: the client is stored as lm-eval's (R.EVAL_CLIENT), and a branch is no version.
LMMS_EVAL, LMMS_EVAL_VERSION, LMMS_NO_VERSION = "lmms-eval", "lmms_eval_version", "unknown@unknown"


def _version(doc: dict):
    """The eval client's version: lm-eval's ``lm_eval_version`` as written, else lmms-eval's, after its name."""
    if "lm_eval_version" in doc:
        return doc["lm_eval_version"]
    lmms = doc.get(LMMS_EVAL_VERSION)
    return f"{LMMS_EVAL} {lmms}" if isinstance(lmms, str) and lmms.strip() and lmms != LMMS_NO_VERSION else None


# Hugging Face lighteval writes results/versions too; its scores are "<metric>" keys beside an
# "all" task that repeats them, and its config sits under config_general.
LIGHTEVAL = "config_general"


def parse(doc: dict, path: str, line: int) -> Measurement:
    if isinstance(doc.get(LIGHTEVAL), dict):
        raise fail(path, line, f"{LIGHTEVAL}: a lighteval results file, not lm-evaluation-harness's",
                   "run the eval with lm-eval (lm_eval --output_path), whose results JSON sweepgate reads")
    m = Measurement("lm-eval-results", R.EVAL_CLIENT, line, client_version=_version(doc))
    n_samples = _dict(doc.get("n-samples"))
    higher = _dict(doc.get("higher_is_better"))  # {task: {metric: bool}}, lm-eval 0.4
    for task, scores in doc["results"].items():
        if not isinstance(scores, dict):
            continue
        samples = _samples(task, n_samples, _dict(doc.get("group_subtasks")), set())
        m.evals.extend(_task_evals(task, scores, samples, path, _dict(higher.get(task)), m.notes))
    _scoreless_groups(doc, m.notes)
    not_run = _lengths_not_run(doc, m.notes)
    _adapter_stderrs(doc, m.evals)
    _run_settings(doc, m.evals)
    failed = _integration_error(doc, m)
    if not m.evals and any(rule == BYPASS_RULE for rule, _, _ in m.notes):
        raise fail(path, line, f"results: only lm-eval's {BYPASS} placeholder (999), no scores: the eval ran with "
                   "--predict_only", BYPASS_HINT)
    if not m.evals and not_run and not failed:
        raise fail(path, line, f"results: only lm-eval's {LENGTH_NOT_RUN} for context lengths no sample had "
                   f"({', '.join(f'{task}.{key}' for task, key in not_run[:3])}{', ...' if not_run[3:] else ''}), "
                   "no scores", "rerun the eval with the lengths to score in --metadata max_seq_lengths")
    unscored = [task for task, scores in doc["results"].items() if isinstance(scores, dict) and _null_scores(scores)]
    if not m.evals and unscored and not failed:
        raise fail(path, line, f"results: no scores, only null ones (task{'s' * (len(unscored) > 1)} "
                   f"{', '.join(unscored)}, as lmms-eval writes a submission-only task's: its answers went to a "
                   "submission file for the benchmark's server to score)",
                   "score the submission file on the benchmark's own server: this file holds no score to store")
    if not m.evals and not failed:
        raise fail(path, line, "results: no '<metric>,<filter>' scores",
                   "the eval produced no scores; check its log")
    m.fields[R.MODEL] = _model(doc)
    m.keys[R.MODEL] = "model_name" if m.fields[R.MODEL] is not None and m.fields[R.MODEL] == doc.get("model_name") \
        else "config.model_args"
    m.fields[R.STARTED], m.fields[R.FINISHED] = _times(doc)
    return m
