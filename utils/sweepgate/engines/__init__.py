"""Engine flag manifests: capture an installed engine's argument parser, check argv against it."""
