"""s45b: rough edges of the results path a maintainer meets.

- AIPerf's console tables were told by their title in the file's first 4 KiB only: a console log kept from the
  job's stdout, its log lines and progress bars first, read "not JSON or CSV". They are now told by their form
  (a title line "NVIDIA AIPerf ..." over a table's top border) wherever they stand.
"""

from __future__ import annotations

from helpers import ROOT, refused_alone

REAL = ROOT / "tests" / "data" / "results-real"
CONSOLE = REAL / "aiperf" / "aiperf0.8_profile_export_console_mock_c250k_error_summary_trimmed.txt"


def _console_log(tmp_path, preamble: str, tables: str, name: str = "aiperf.log"):
    path = tmp_path / name
    path.write_text(preamble + tables, encoding="utf-8")
    return path


# What `aiperf profile ... | tee aiperf.log` keeps before its tables: its log lines (here a long run's worth).
PREAMBLE = "".join(f"2026-01-01 12:{i // 60:02d}:{i % 60:02d}.000 INFO     Worker {i % 8}: {i * 17} of 563265 "
                   "requests completed, 0 errors (NVIDIA B300, step of the profiling phase)\n" for i in range(400))


def test_aiperf_console_tables_after_a_long_log_are_refused_as_console_tables(capsys, tmp_path):
    assert len(PREAMBLE) > 4096 * 8
    log = _console_log(tmp_path, PREAMBLE, CONSOLE.read_text(encoding="utf-8"))
    src, lines = refused_alone(capsys, tmp_path, log)
    assert lines == [f"{src}:1: format: AIPerf's console tables ('NVIDIA AIPerf | ...', as "
                     "profile_export_console.txt keeps them; figures rounded for display), not its export; ingest "
                     "the run's profile_export_aiperf.json beside it, or remove the file"], lines


def test_a_console_table_titled_by_the_client_alone_and_drawn_in_light_lines_is_told_too(capsys, tmp_path):
    """AIPerf's Rust exporter titles the metrics table "NVIDIA AIPerf" alone; a light box (┌) is rich's too."""
    tables = CONSOLE.read_text(encoding="utf-8").split("NVIDIA AIPerf | LLM Metrics", 1)[1].lstrip("\n")
    tables = "                        NVIDIA AIPerf    \n" + tables.translate(str.maketrans("┏┓┗┛━┃┳┻┡┩╇", "┌┐└┘─│┬┴├┤┼"))
    src, lines = refused_alone(capsys, tmp_path, _console_log(tmp_path, PREAMBLE, tables))
    assert len(lines) == 1 and lines[0].startswith(f"{src}:1: format: AIPerf's console tables"), lines


def test_the_title_in_a_log_line_is_no_console_table(capsys, tmp_path):
    """The title's words inside a line of text (a log quoting it) are no table: the file stays "not JSON or CSV"."""
    text = PREAMBLE + "INFO     printing NVIDIA AIPerf | LLM Metrics\n┏━━━━┓\n"
    src, lines = refused_alone(capsys, tmp_path, _console_log(tmp_path, "", text))
    assert len(lines) == 1 and "console tables" not in lines[0] and "not JSON or CSV" in lines[0], lines
