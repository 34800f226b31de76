"""Near-duplicate filter: MinHash over word shingles, on the whole task and on what it adds.

Siblings share all of their parent's text, so the whole-task similarity of two siblings is
high even when they add different steps. A candidate is a duplicate only when it is similar
to an accepted task both as a whole and in what it adds to its parent.
"""

from __future__ import annotations

import re

import numpy as np
from datasketch import MinHash, MinHashLSH
from pydantic import BaseModel, Field

from rst_synth.task import Task

_SCHEME = "affine32"  # fixed, so fingerprints stored by one version load in the next
_WORD = re.compile(r"[A-Za-z0-9_./-]+")


class NoveltyConfig(BaseModel):
    """Thresholds of the near-duplicate filter."""

    whole_threshold: float = Field(default=0.8, gt=0, le=1)
    """Estimated Jaccard similarity of instruction + solution at or above which tasks look alike."""
    added_threshold: float = Field(default=0.7, gt=0, le=1)
    """Estimated Jaccard similarity of the text added to the parent at or above which additions match."""
    shingle_words: int = Field(default=5, ge=1)
    """Words per shingle."""
    num_perm: int = Field(default=128, ge=16)
    """MinHash permutations: more is more precise and slower."""


def task_text(task: Task) -> str:
    return task.instruction + "\n" + task.solve_sh


def added_text(task: Task, parent: Task | None) -> str:
    """What `task` adds to `parent`: its instruction and solution lines the parent lacks."""
    if parent is None:
        return task_text(task)
    seen = set(task_text(parent).splitlines())
    return "\n".join(line for line in task_text(task).splitlines() if line not in seen)


class NoveltyIndex:
    """Every accepted task's fingerprints, queryable by LSH in well under a millisecond."""

    def __init__(self, config: NoveltyConfig | None = None) -> None:
        self.config = config or NoveltyConfig()
        self._whole = MinHashLSH(threshold=self.config.whole_threshold, num_perm=self.config.num_perm)
        self._added: dict[str, MinHash] = {}
        self._whole_hashes: dict[str, MinHash] = {}

    def __len__(self) -> int:
        return len(self._added)

    def fingerprint(self, text: str) -> MinHash:
        words = _WORD.findall(text.lower())
        n = self.config.shingle_words
        shingles = {" ".join(words[i : i + n]) for i in range(max(1, len(words) - n + 1))}
        digest = MinHash(num_perm=self.config.num_perm, seed=1, scheme=_SCHEME)
        digest.update_batch([s.encode() for s in shingles])
        return digest

    def fingerprints(self, task: Task, parent: Task | None) -> tuple[MinHash, MinHash]:
        return self.fingerprint(task_text(task)), self.fingerprint(added_text(task, parent))

    def duplicate_of(self, whole: MinHash, added: MinHash) -> str | None:
        """The id of an accepted task this one nearly duplicates, or None."""
        for task_id in sorted(self._whole.query(whole)):
            if added.jaccard(self._added[task_id]) >= self.config.added_threshold:
                return str(task_id)
        return None

    def add(self, task_id: str, whole: MinHash, added: MinHash) -> None:
        if task_id in self._added:
            return
        self._whole.insert(task_id, whole)
        self._whole_hashes[task_id] = whole
        self._added[task_id] = added

    @staticmethod
    def dump(digest: MinHash) -> bytes:
        return np.asarray(digest.hashvalues, dtype=np.uint64).tobytes()

    def load(self, raw: bytes) -> MinHash:
        return MinHash(num_perm=self.config.num_perm, seed=1, scheme=_SCHEME,
                       hashvalues=np.frombuffer(raw, dtype=np.uint64))
