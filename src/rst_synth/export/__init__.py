"""Export: accepted tasks as a Harbor dataset (flat or multi-step) with a manifest."""

from rst_synth.export.dataset import MANIFEST_FIELDS, check_lineages, export_dataset, export_dirs, task_form
from rst_synth.export.multistep import LineageError

__all__ = ["MANIFEST_FIELDS", "LineageError", "check_lineages", "export_dataset", "export_dirs", "task_form"]
