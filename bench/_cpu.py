"""CPU time of bench processes (psutil), for the benches' CPU-per-request and per-job figures."""

from __future__ import annotations


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process, of its children that ended, and of those that still run."""
    import psutil

    try:
        main = psutil.Process(pid)
        times = main.cpu_times()
        total = times.user + times.system + times.children_user + times.children_system
        children = main.children(recursive=True)
    except psutil.Error:
        return 0.0
    for child in children:
        try:
            times = child.cpu_times()
        except psutil.Error:  # it ended meanwhile: its time is in its parent's children_* now
            continue
        total += times.user + times.system
    return total
