"""GPU-free rehearsal: run a row's benchmark script against a stand-in server."""
