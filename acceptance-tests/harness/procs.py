"""Processes under a PID, read from /proc (Linux): to find the provider plugin a Terraform run started, and only that
one, when several Terraform runs (other tests, other users of the machine) have providers of the same binary."""
import os
import signal
import time
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent PID) of `pid`, or None if it is gone. The command name in /proc/<pid>/stat may hold spaces and
    parentheses, so the fields are read after its last ')'."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """Running (a zombie, killed but not yet reaped by its parent, is not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (children, their children, ...), in PID order."""
    parents = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] not in ("Z", "X"):
                parents[int(entry.name)] = stat[1]
    found: list[int] = []
    frontier = {pid}
    while frontier:
        children = {child for child, parent in parents.items() if parent in frontier}
        found.extend(children)
        frontier = children
    return sorted(found)


def executable(pid: int) -> Path | None:
    """The file `pid` runs (the binary as it was when started: " (deleted)" if it was rebuilt since), or None."""
    try:
        target = os.readlink(PROC / str(pid) / "exe")
    except OSError:
        return None
    return Path(target.removesuffix(" (deleted)"))


def running(pid: int, binary: Path) -> list[int]:
    """The live processes below `pid` that run `binary`."""
    wanted = Path(binary).resolve()
    return [p for p in descendants(pid) if executable(p) == wanted]


def kill(pids: list[int], timeout: float = 10.0) -> None:
    """SIGKILL each of `pids`, then wait until none is running any more (its parent may reap it later)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            raise TimeoutError(f"processes {[p for p in pids if alive(p)]} still running {timeout}s after SIGKILL")
        time.sleep(0.02)
