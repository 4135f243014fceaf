"""Processes the tests start that must not outlive the test process, however it ends (a SIGKILL or a
closed session skips every `finally` and fixture teardown)."""

# Prefix of a command: setpriv (util-linux) sets the parent-death signal, then runs the command, which
# the kernel KILLs as the process that started it dies (a server the test would have stopped).
DIES_WITH_US = ["setpriv", "--pdeathsig", "KILL", "--"]
