"""The one-way pipeline (load -> check -> expand -> select -> report) and what it stands on."""
