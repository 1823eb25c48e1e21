"""Line diffs between two texts for the history and review pages. Lines stay plain text: the
templates escape them, so page content can never become markup here."""

from __future__ import annotations

import difflib

CONTEXT_LINES = 3


def diff_lines(old: str, new: str, *, context: int = CONTEXT_LINES) -> list[dict]:
    """[{kind: "add" | "del" | "ctx" | "hunk", text}] in unified-diff order; empty when equal."""
    rows = []
    lines = difflib.unified_diff((old or "").splitlines(), (new or "").splitlines(), lineterm="", n=context)
    for index, line in enumerate(lines):
        if index < 2:  # the "---" / "+++" file header
            continue
        if line.startswith("@@"):
            rows.append({"kind": "hunk", "text": line})
        elif line.startswith("+"):
            rows.append({"kind": "add", "text": line[1:]})
        elif line.startswith("-"):
            rows.append({"kind": "del", "text": line[1:]})
        else:
            rows.append({"kind": "ctx", "text": line[1:]})
    return rows


def proposal_review(proposal) -> dict:
    """What a reviewer sees of a proposal: its diff against the page as it is now, whether the
    title changes, and whether the page moved on since (then it can no longer be accepted)."""
    current = proposal.page
    return {
        "proposal": proposal,
        "diff": diff_lines(current.body if current is not None else "", proposal.body),
        "title_changed": current is not None and current.title != proposal.title,
        "outdated": current is not None and current.current_revision_id != proposal.base_revision_id,
    }
