"""sweepgate: changelog gate, benchmark matrix and GPU fan-out for InferenceX-style repositories."""

__version__ = "0.1.0"
