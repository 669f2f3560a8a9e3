"""What changed between two views of a table: the `changes` an event frame carries.

A view is most of an event frame's bytes, and most of it (the rules, the
configuration, the score sheets of earlier smazzate, the commitments) is the same
after a move as before. So an event frame carries only the keys that changed since
the view its subscriber has, at the top level and inside `deal`, and the names of
the keys that went away; the client applies them to the view it holds
(docs/protocol.md). A new subscriber, or one whose seat changed, gets a whole view.
"""

from __future__ import annotations

from typing import Any

__all__ = ["apply_changes", "view_changes"]


#: Marks a key missing from the old view.
_MISSING: Any = object()


def _diff(
    old: dict[str, Any], new: dict[str, Any], skip: str | None, memo: dict[tuple[int, int], bool]
) -> dict[str, Any]:
    # most values are the very objects of the old view: find the others first (a
    # comprehension is much cheaper than a loop here), then compare those
    get = old.get
    candidates = {k: v for k, v in new.items() if get(k, _MISSING) is not v}
    if skip is not None:
        candidates.pop(skip, None)
    changed: dict[str, Any] = {}
    for k, v in candidates.items():
        was = get(k, _MISSING)
        if was is _MISSING:
            changed[k] = v
            continue
        pair = (id(was), id(v))
        same = memo.get(pair)
        if same is None:
            same = memo[pair] = was == v
        if not same:
            changed[k] = v
    out: dict[str, Any] = {"set": changed}
    gone = [k for k in old if k not in new and k != skip]
    if gone:
        out["unset"] = gone
    return out


def view_changes(
    base: dict[str, Any],
    view: dict[str, Any],
    memo: dict[tuple[int, int], bool] | None = None,
) -> dict[str, Any]:
    """`view` as changes to `base`: {"set": {...}, "unset": [...], "deal": {"set":
    ..., "unset": ...}}, "deal" only when both have a deal (else it is set whole).

    Several viewers' views share most of their values, so a broadcast passes one
    `memo` for all of them: each pair of values is compared once. Its keys are
    objects' ids, so it must not outlive the views it was made with."""
    if memo is None:
        memo = {}
    old_deal, deal = base.get("deal"), view.get("deal")
    if isinstance(old_deal, dict) and isinstance(deal, dict):
        out = _diff(base, view, "deal", memo)
        out["deal"] = _diff(old_deal, deal, None, memo)
        return out
    return _diff(base, view, None, memo)


def apply_changes(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The view that `changes` make of `base` (a new dict: `base` is left as it is)."""
    view = {**base, **changes["set"]}
    for k in changes.get("unset", ()):
        view.pop(k, None)
    deal = changes.get("deal")
    if deal is not None:
        merged = {**base["deal"], **deal["set"]}
        for k in deal.get("unset", ()):
            merged.pop(k, None)
        view["deal"] = merged
    return view
