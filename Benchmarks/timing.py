"""Whole-process timing shared by the benchmarks that compare commands (startup.py, import.py,
track-week.sh): one run of a program from spawn to exit, its output discarded."""
import os
import time

_devnull = os.open(os.devnull, os.O_WRONLY)


def timed_run(argv, environment, benchmark):
    """Wall seconds of one run of `argv` with `environment`, from spawn to exit, its standard output to
    /dev/null; exits naming `benchmark` and the command when it fails."""
    began = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, environment, file_actions=[(os.POSIX_SPAWN_DUP2, _devnull, 1)])
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - began
    if status != 0:
        raise SystemExit(f"{benchmark}: {' '.join(argv)} exited with status {status}")
    return elapsed
