"""Whole-process timing shared by the benchmarks that compare commands (startup.py, import.py,
track-week.sh): one run of a program from spawn to exit, its output discarded."""
import os
import time

_devnull = os.open(os.devnull, os.O_WRONLY)


def timed_run(argv, environment, benchmark, accepted=(0,), quiet=False):
    """Wall seconds of one run of `argv` with `environment`, from spawn to exit, its standard output to
    /dev/null (and its standard error too when `quiet`); exits naming `benchmark` and the command when
    it fails: killed, or an exit status not in `accepted` (a command whose answer is a status, such as
    `dustctl status`'s 3, names it there)."""
    began = time.perf_counter()
    actions = [(os.POSIX_SPAWN_DUP2, _devnull, 1)] + ([(os.POSIX_SPAWN_DUP2, _devnull, 2)] if quiet else [])
    pid = os.posix_spawn(argv[0], argv, environment, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - began
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) not in accepted:
        raise SystemExit(f"{benchmark}: {' '.join(argv)} exited with status {status}")
    return elapsed
