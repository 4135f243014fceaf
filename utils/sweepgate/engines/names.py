"""The engines and clients sweepgate keeps flag manifests of: one table.

``capture`` builds their parsers inside an engine's container, so this module imports nothing;
``manifest`` reads a job's pip pins by it and ``preflight`` the recorded calls a manifest checks.
"""

# engine -> (pip distribution, command as typed: the program, then the subcommand words the manifest is of)
ENGINES = {
    "vllm": ("vllm", "vllm serve"),
    "vllm-bench": ("vllm", "vllm bench serve"),
    "lmcache": ("lmcache", "lmcache server"),
    "mooncake": ("mooncake-transfer-engine", "mooncake_master"),
    "aiperf": ("aiperf", "aiperf profile"),
    "lm-eval": ("lm_eval", "lm_eval"),
}
# The other name a program is installed under -> its name in ENGINES (lm-eval's console scripts: both)
PROGRAM_ALIASES = {"lm-eval": "lm_eval"}
