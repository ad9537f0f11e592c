"""How much a student's check may use: the rlimits and caps applied to the child."""

from __future__ import annotations

from dataclasses import dataclass

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Defaults fit the course's exercises with a wide margin (they take milliseconds)."""

    wall_seconds: float = 10.0  # the whole check, from the job being sent to the last byte
    cpu_seconds: int = 10
    memory_bytes: int = 1024 * MB  # address space: NumPy and OpenBLAS need about 300 MB
    file_bytes: int = 16 * MB  # the largest file the code may write (in its own tmpfs)
    tmpfs_bytes: int = 32 * MB  # the work folder and /tmp together
    open_files: int = 64
    processes: int = 32  # on top of what the user already runs; root ignores it
    output_bytes: int = 64 * 1024  # stdout and stderr each, as shown to the student
    result_bytes: int = 16 * MB  # one returned array


TEST_LIMITS = Limits(
    wall_seconds=5.0,
    cpu_seconds=3,
    memory_bytes=768 * MB,
    file_bytes=4 * MB,
    tmpfs_bytes=8 * MB,
    open_files=32,
    processes=16,
    output_bytes=4096,
    result_bytes=4 * MB,
)
