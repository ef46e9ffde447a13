"""Readings of what AWS leaves undocumented: one registry, so every guess the sandbox makes is named, switchable and
listed (docs/sandbox.md's fidelity table).

Each guess has its plausible readings; the first is the default (the stricter one). A run picks another with the
environment (`HYPERPOD_SANDBOX_<NAME>`, e.g. HYPERPOD_SANDBOX_QUOTA_CAPACITY=accept; `make test-readings` runs the
suites that meet a guess under every other reading), a test with
`PUT /_sandbox/settings {"<name>": "<reading>"}` (`null`: back to the run's); a reset restores the run's readings.
"""
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Guess:
    readings: tuple[str, ...]
    question: str  # what AWS does not say, and where it is silent


GUESSES = {
    "target_version": Guess(
        ("current", "next"),
        "UpdateComputeQuota / UpdateClusterSchedulerConfig `TargetVersion`: the version being replaced (current) or "
        "the one the update makes (next)? The API reference says only \"Target version\"."),
    "quota_capacity": Guess(
        ("refuse", "accept"),
        "A guaranteed compute quota that overcommits the cluster: refused, or created (the task-governance pages say "
        "only that \"the sum of reserved quotas should not exceed cluster capacity\")?"),
    "unknown_members": Guess(
        ("refuse", "ignore"),
        "A JSON request member the service model does not have (AWS's own compute-allocation page spells `vCpu`): "
        "SerializationException, or skipped? The Smithy protocol specifications define no server behaviour and "
        "have no protocol test for it; smithy-rs servers skip it (smithy-lang/smithy-rs#2598)."),
    "scheduler_before_addon": Guess(
        ("create_failed", "refuse"),
        "A cluster scheduler config or compute quota written while the task-governance add-on is not ACTIVE: "
        "accepted and settled CreateFailed/UpdateFailed with a FailureReason, or refused at once "
        "(ValidationException)? AWS has the add-on installed first and documents CreateFailed and its fix (\"delete "
        "the failed policy and create a new one\", the task-governance troubleshooting page); no page says which "
        "answer a write without the add-on gets."),
}

_chosen: dict[str, str] = {}  # PUT /_sandbox/settings, until the next reset


def _from_environment(name: str) -> str:
    guess = GUESSES[name]
    value = os.environ.get(f"HYPERPOD_SANDBOX_{name.upper()}") or guess.readings[0]
    if value not in guess.readings:
        raise ValueError(f"HYPERPOD_SANDBOX_{name.upper()} must be one of {list(guess.readings)}, not {value!r}")
    return value


def reading(name: str) -> str:
    """The reading of guess `name` in effect."""
    return _chosen.get(name) or _from_environment(name)


def settings(body: dict | None = None) -> dict:
    """GET/PUT /_sandbox/settings: every guess's reading in effect; a PUT changes only the names it gives (`null`:
    back to the run's)."""
    if body is not None:
        unknown = set(body) - set(GUESSES)
        if unknown:
            raise ValueError(f"unknown settings {sorted(unknown)}; known: {sorted(GUESSES)}")
        for name, value in body.items():
            if value is None:
                _chosen.pop(name, None)
            elif value in GUESSES[name].readings:
                _chosen[name] = value
            else:
                raise ValueError(f"{name!r} must be one of {list(GUESSES[name].readings)} or null")
    return {name: reading(name) for name in GUESSES}


def reset() -> None:
    _chosen.clear()
