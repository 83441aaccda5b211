"""The policy-review comment's patches, one by one: every flip (with --no-baseline, every reject)
in a table, then each one's decisions and lines in a collapsed block.

GitHub takes a comment of at most 65,536 characters.  When the patches do not fit, their
subjects and reason messages are shortened first, then their blocks' lines, share and share
alike (a block that needs less than its share leaves the rest to the others): a patch is never
dropped, and the comment says what was cut and where the whole replay is.  Each reason's
sentence is said once, above the blocks.  Commit text is escaped (render.md) or fenced
(evidence_text): it never becomes Markdown or HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lanelog.cli.render.cells import md
from lanelog.evidence_text import BACKTICKS, decided_lines, details, reason_messages
from lanelog.framing import framed_line
from lanelog.reasons import REASONS

COMMENT_LIMIT = 65_536
# What the replay's markdown may take of a comment: a workflow adds a line or two of its own
# (the first-policy note, where the run keeps the whole replay).
MARKDOWN_LIMIT = COMMENT_LIMIT - 1_536
# How much of each subject and each reason message is kept, the longest first (0: none).
SHORTENINGS = ((160, 400), (80, 160), (40, 0), (0, 0))
CUT_NOTE = "... {} more line(s) cut here to keep the comment within GitHub's 65,536 characters"


def size(text: str) -> int:
    """Characters as GitHub counts a comment's: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def short(text: str | None, keep: int) -> str:
    """``text`` kept to ``keep`` characters, a longer one ending in "…"."""
    text = text or ""
    return text if len(text) <= keep else text[:max(keep - 1, 0)] + "…"


@dataclass
class _Patch:
    """One patch of the section: where it is listed, its decisions, and its lines as shown, one
    part a side (the rejecting side's whole, the other's where it reads otherwise)."""

    number: int
    patch: dict[str, Any]
    sides: list[tuple[str, dict[str, Any]]]
    parts: list[list[str]]

    @property
    def lines(self) -> list[str]:
        return [line for part in self.parts for line in part]


def patches_section(rows: list[tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]], noun: str,
                    used: int, whole: str) -> list[str]:
    """The section of ``rows`` (a patch and its sides' decisions, evidence included) for a comment
    whose other lines take ``used`` characters; ``whole`` says where the whole replay is."""
    patches = [_Patch(number, patch, sides, _parts(sides)) for number, (patch, sides) in enumerate(rows, start=1)]
    blocks = len(patches)
    level = SHORTENINGS[0]
    for level in SHORTENINGS:
        if used + size("\n".join(_section(patches, noun, level, whole))) <= MARKDOWN_LIMIT:
            break
    while blocks and used + size("\n".join(_section(patches, noun, level, whole, blocks=blocks))) > MARKDOWN_LIMIT:
        blocks -= 1  # past about a thousand patches: the table still lists every one
    room = MARKDOWN_LIMIT - used - size("\n".join(_section(patches, noun, level, whole, blocks=blocks)))
    room -= sum(2 * (_fence(patch.lines) - 3) for patch in patches[:blocks])
    fitted = [[_fit(part, share) for part, share in zip(patch.parts, _shares([_need(part) for part in patch.parts],
                                                                           whole_share))]
              for patch, whole_share in zip(patches, _shares([_need(patch.lines) for patch in patches[:blocks]], room))]
    cut = {"subjects": any(len(patch.patch.get("subject") or "") > level[0] for patch in patches),
           "messages": any(len(message) > level[1] for patch in patches for _side, decision in patch.sides
                           for message in reason_messages(decision.get("reasons"), decision.get("message")).values()),
           "lines": sum(sum(map(len, kept)) < len(patch.lines) for kept, patch in zip(fitted, patches)),
           "blocks": len(patches) - blocks}
    return _section(patches, noun, level, whole, blocks=blocks, fitted=fitted, cut=cut)


def _section(patches: list[_Patch], noun: str, level: tuple[int, int], whole: str, *, blocks: int | None = None,
             fitted: list[list[list[str]]] | None = None, cut: dict[str, Any] | None = None) -> list[str]:
    """The section at a level of shortening; before ``fitted`` and ``cut`` are known, each block holds
    only its cut note and the notice says everything was cut (the most either can take)."""
    out = ["", f"## {noun.capitalize()}s ({len(patches)})", ""]
    if not patches:
        return out + ["No patch changes its probe." if noun == "flip" else "The candidate passes every patch."]
    subjects, messages = level
    sides = [side for side, _decision in patches[0].sides]
    out += [f"| # | commit | {' | '.join(sides)} |" + (" subject |" if subjects else ""),
            "|---:|---|" + "---|" * len(sides) + ("---|" if subjects else "")]
    out += [f"| {patch.number} | {md(patch.patch['head'][:12])} | "
            + " | ".join(_side(decision) for _name, decision in patch.sides) + " |"
            + (f" {md(short(patch.patch.get('subject'), subjects))} |" if subjects else "") for patch in patches]
    told = cut if cut is not None else {"subjects": True, "messages": True, "lines": len(patches),
                                        "blocks": len(patches)}
    out += ["", _notice(noun, told, whole), "", "What each reason means:", ""]
    out += [f"- **{md(reason.replace('_', ' '))}**: {md(REASONS.get(reason, ''))}" for reason in _reasons(patches)]
    out += ["", f"### Why each {noun}", ""]
    for index, patch in enumerate(patches[:len(patches) if blocks is None else blocks]):
        out += _block(patch, messages, fitted[index] if fitted is not None else [[] for _part in patch.parts])
    return out


def _block(patch: _Patch, messages: int, kept: list[list[str]]) -> list[str]:
    """One patch collapsed: its decisions (a rejecting side's reasons with their messages, kept to
    ``messages`` characters) and the lines they rest on, each part's first ``kept`` lines and a
    note of how many more it had."""
    said = []
    for side, decision in patch.sides:
        parts = reason_messages(decision.get("reasons"), decision.get("message")) if messages else {}
        said.append(f"- {side}: {md(decision['probe'])}" + "".join(
            f"; {md(short(parts[reason], messages))}" for reason in decision["reasons"] if reason in parts))
    summary = f"{patch.number}. {patch.patch['head'][:12]}: " + "; ".join(
        f"{side} {decision['probe']}" + (f" ({_words_of(decision['reasons'])})" if decision["reasons"] else "")
        for side, decision in patch.sides)
    if not patch.lines:
        said += ["", "Neither side's decision rests on lines of this patch."]
    shown = [line for part, lines in zip(patch.parts, kept)
             for line in [*lines, *[CUT_NOTE.format(len(part) - len(lines))] * (len(lines) < len(part))]]
    return [*details(summary, shown, above=said), ""]


def _words_of(reasons: list[Any]) -> str:
    """Reason codes as words ("assertion removed, line cap")."""
    return ", ".join(str(reason).replace("_", " ") for reason in reasons)


def _parts(sides: list[tuple[str, dict[str, Any]]]) -> list[list[str]]:
    """The lines each side decided on (evidence_text.decided_lines), a part a side, with lanelog's
    words above each."""
    parts: list[list[str]] = []
    for side, lines, whole in decided_lines([(side, str(decision["probe"]), decision.get("evidence"))
                                             for side, decision in sides]):
        probe = next(decision["probe"] for name, decision in sides if name == side)
        verb = {"reject": "it rejects", "pass": "it passes"}.get(probe, "it decides")
        if whole:
            part = [f"The lines the {side} decided on ({verb}):", *lines]
        elif lines:
            part = ["", f"What the {side} reads otherwise ({verb}):", *lines]
        else:
            part = ["", f"The {side} decided on the same lines ({verb})."]
        parts.append([framed_line(line) for line in part])
    return parts


def _reasons(patches: list[_Patch]) -> list[str]:
    """The reason codes of the rejecting sides, each once, in order of first use."""
    return list(dict.fromkeys(reason for patch in patches for _side, decision in patch.sides
                              for reason in decision["reasons"] if isinstance(reason, str)))


def _side(decision: dict[str, Any]) -> str:
    """A decision in a markdown cell: its probe and reasons, escaped."""
    return f"{md(decision['probe'])} {md(', '.join(decision['reasons']))}".rstrip()


def _fence(lines: list[str]) -> int:
    """The length of the fence evidence_text.fenced puts around ``lines``."""
    return max(3, max((len(run) for line in lines for run in BACKTICKS.findall(line)), default=0) + 1)


def _need(lines: list[str]) -> int:
    return sum(size(line) + 1 for line in lines)


def _shares(needs: list[int], room: int) -> list[int]:
    """Each block's characters: the smallest needs met first, the rest shared equally."""
    shares = [0] * len(needs)
    left = max(room, 0)
    for rank, index in enumerate(sorted(range(len(needs)), key=needs.__getitem__)):
        shares[index] = min(needs[index], left // (len(needs) - rank))
        left -= shares[index]
    return shares


def _fit(lines: list[str], share: int) -> list[str]:
    """The first lines of a part that fit its share (its cut note has room of its own)."""
    kept: list[str] = []
    for line in lines:
        share -= size(line) + 1
        if share < 0:
            break
        kept.append(line)
    return kept


def _notice(noun: str, cut: dict[str, Any], whole: str) -> str:
    """What was shortened to fit the comment, and where the whole replay is."""
    said = ["subjects"] * bool(cut["subjects"]) + ["reason messages"] * bool(cut["messages"]) + [
        f"the lines of {cut['lines']} {noun}(s)"] * bool(cut["lines"]) + [
        f"the last {cut['blocks']} {noun}(s) to their table row"] * bool(cut["blocks"])
    if not said:
        return f"Every {noun} is listed with its lines; {whole}."
    return (f"Every {noun} is listed; to keep this comment within GitHub's 65,536 characters, "
            f"{_words(said)} were shortened; {whole}.")


def _words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
