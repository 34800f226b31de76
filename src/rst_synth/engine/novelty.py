"""Near-duplicate filter: MinHash over word shingles, on the whole task and on what it adds.

Siblings share all of their parent's text, so the whole-task similarity of two siblings is
high even when they add different steps. A candidate is a duplicate only when it is similar
to an accepted task both as a whole and in what it adds to its parent.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from rst_synth.task import Task

if TYPE_CHECKING:  # imported where used: datasketch pulls in scipy (0.6 s), numpy takes 0.07 s,
    import numpy as np  # and every `rst` command (`rst stats` too) imports this module
    from datasketch import MinHash

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
        from datasketch import MinHashLSH

        self.config = config or NoveltyConfig()
        self._whole = MinHashLSH(threshold=self.config.whole_threshold, num_perm=self.config.num_perm)
        self._added: dict[str, MinHash] = {}
        self._permutations: dict[int, np.ndarray] = {}
        """Permutations by num_perm, made once: MinHash draws them anew for every digest otherwise
        (about 0.25 ms each, most of the time of loading a large run's fingerprints)."""

    def _minhash(self, num_perm: int, hashvalues: np.ndarray | None = None) -> MinHash:
        from datasketch import MinHash

        if num_perm not in self._permutations:
            self._permutations[num_perm] = MinHash(num_perm=num_perm, seed=1, scheme=_SCHEME).permutations
        return MinHash(
            num_perm=num_perm, seed=1, scheme=_SCHEME, hashvalues=hashvalues, permutations=self._permutations[num_perm]
        )

    def __len__(self) -> int:
        return len(self._added)

    def fingerprint(self, text: str) -> MinHash:
        words = _WORD.findall(text.lower())
        n = self.config.shingle_words
        shingles = {" ".join(words[i : i + n]) for i in range(max(1, len(words) - n + 1))}
        digest = self._minhash(self.config.num_perm)
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
        self._whole.insert(task_id, whole)  # the LSH keeps its band keys, not the digest
        self._added[task_id] = added

    @staticmethod
    def dump(digest: MinHash) -> bytes:
        import numpy as np

        return np.asarray(digest.hashvalues, dtype=np.uint64).tobytes()

    def load(self, raw: bytes) -> MinHash:
        import numpy as np

        hashvalues = np.frombuffer(raw, dtype=np.uint64)
        return self._minhash(len(hashvalues), hashvalues)
