"""Build hook: the wheel carries the example fleet `sweepgate example` runs on, and the docs.

The fleet's files stay where the repository keeps them (perf-changelog.yaml,
configs/, benchmarks/); building copies them into ``sweepgate/fleet/`` so an
installed package reads them through importlib.resources. The docs (docs/*.md, which
`--help` cites) go to ``sweepgate/docs/``, and README.md, which they cite, beside them to ``sweepgate/README.md``
(its ``docs/X.md`` links resolve there). There is no second copy to keep in step:
tests/test_install.py checks the wheel against the tree.
Everything else about the package is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
FLEET_DIR = "fleet"
FLEET_PATTERNS = ("perf-changelog.yaml", "configs/*.yaml", "benchmarks/**/*.sh", "benchmarks/**/*.md")
DOCS_PATTERNS = ("README.md", "docs/*.md")


def tree_files(patterns: tuple[str, ...]) -> list[Path]:
    """The files these patterns match, relative to the repository root."""
    found = {p.relative_to(ROOT) for pattern in patterns for p in ROOT.glob(pattern) if p.is_file()}
    return sorted(found)


class BuildPyWithFleet(build_py):
    def run(self) -> None:
        if not getattr(self, "editable_mode", False):
            # setuptools only adds to build/lib: a file the tree no longer has would still ship
            shutil.rmtree(Path(self.build_lib) / "sweepgate", ignore_errors=True)
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the fleet from the checkout itself
        package = Path(self.build_lib) / "sweepgate"
        copies = [(rel, package / FLEET_DIR / rel) for rel in tree_files(FLEET_PATTERNS)]
        copies += [(rel, package / rel) for rel in tree_files(DOCS_PATTERNS)]  # docs/x.md -> sweepgate/docs/x.md, README.md -> sweepgate/
        for rel, dest in copies:
            dest.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(ROOT / rel), str(dest))


setup(cmdclass={"build_py": BuildPyWithFleet})
