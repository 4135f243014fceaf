"""pr-links: the repository they point to, their canonical form, and what makes one acceptable.

A canonical link is ``https://github.com/OWNER/NAME/pull/N``; in a pull request
``.../pull/XXX`` stands in until ``sweepgate changelog canonicalize`` fills it in.
"""

from __future__ import annotations

import collections
import re

from sweepgate.core import fields, github
from sweepgate.core.errors import Diagnostic, SweepgateError


PR_URL = re.compile(rf"^https://github\.com/({github.NAME_PART})/({github.NAME_PART})/pull/([^/\s]+)$")
PR_LINK_LINE = re.compile(rb"^(\s*(?:-\s+)?pr-link:[ ]*)(.*?)[ ]*$")
REPO_IN_TEXT = re.compile(rb"https://github\.com/(%s)/pull/" % github.OWNER_NAME_TEXT.encode())
PLACEHOLDER = "XXX"
# The rule of a pr-link problem, and of the repository they point to that cannot be told (its title under
# GitHub Actions: bad input, exit 1, never argparse's ``usage``): named after the field.
PR_LINK = fields.PR_LINK


def resolve_repository(explicit: str | None, history: bytes) -> str | None:
    """``github.repository`` (--repository, then GITHUB_REPOSITORY), then the repository most
    pr-links point to. One that is no OWNER/NAME is refused where it came from."""
    candidate = github.repository(explicit)
    if candidate:
        if not github.OWNER_NAME.fullmatch(candidate):
            given = bool(explicit and explicit.strip())
            raise SweepgateError(Diagnostic(
                "--repository" if given else f"${github.REPOSITORY_VARIABLE}", 0, 0, PR_LINK,
                github.not_owner_name(candidate),
                "pass e.g. --repository SemiAnalysisAI/InferenceX" if given else
                "set it to OWNER/NAME, or pass --repository OWNER/NAME (e.g. SemiAnalysisAI/InferenceX)"))
        return candidate
    counts = collections.Counter(REPO_IN_TEXT.findall(history))  # C speed: no Python per link
    return counts.most_common(1)[0][0].decode() if counts else None


def canonical_link(repo: str, number: int | str) -> str:
    return f"https://github.com/{repo}/pull/{number}"


def pr_link_problem(link, repo: str | None, pr_number: int | None,
                    allow_placeholder: bool) -> tuple[str, str] | None:
    """(message, hint) when an appended entry's pr-link is not acceptable."""
    example = canonical_link(repo or "OWNER/NAME", pr_number or "N")
    if not isinstance(link, str):
        return None  # the schema reports the type
    m = PR_URL.fullmatch(link)
    if not m:
        return (f"pr-link '{link}' is not a canonical GitHub pull-request URL", f"use {example}")
    owner_name, number = f"{m.group(1)}/{m.group(2)}", m.group(3)
    if repo and owner_name != repo:
        return (f"pr-link points to {owner_name}, not to this repository ({repo})", f"use {example}")
    if number == PLACEHOLDER:
        if allow_placeholder:
            return None
        return ("pr-link still has the XXX placeholder",
                "replace XXX with the merged PR's number (sweepgate changelog canonicalize --pr-number N)")
    if number.upper() == PLACEHOLDER:  # 'xxx', 'Xxx': the placeholder misspelt, which canonicalize fills in too
        fill = f"sweepgate changelog canonicalize --pr-number {pr_number or 'N'}"
        if allow_placeholder:
            return (f"pr-link placeholder '{number}' is not XXX (upper case)",
                    f"write .../pull/XXX, or fill in the PR's link now: {fill}")
        return (f"pr-link still has a placeholder, '{number}'", f"replace it with the merged PR's number ({fill})")
    if not re.fullmatch(r"[1-9][0-9]*", number):
        return (f"pr-link number '{number}' is not a pull-request number", f"use {example}")
    if pr_number is not None and int(number) != pr_number:
        return (f"pr-link points to PR #{number}, but this is PR #{pr_number}",
                f"use {canonical_link(repo or owner_name, pr_number)} (or .../pull/XXX)")
    return None


def correction_of(old: bytes, new: bytes, repo: str | None) -> bool:
    """True when ``new`` only rewrites ``old``'s pr-link value to a canonical URL of ``repo``."""
    mo, mn = PR_LINK_LINE.match(old), PR_LINK_LINE.match(new)
    if not (mo and mn) or mo.group(1) != mn.group(1):
        return False
    try:
        value = mn.group(2).decode("ascii")
    except UnicodeDecodeError:
        return False
    m = PR_URL.fullmatch(value)
    if not m or not re.fullmatch(r"[1-9][0-9]*", m.group(3)) or value.encode() == mo.group(2):
        return False
    return repo is None or f"{m.group(1)}/{m.group(2)}" == repo
