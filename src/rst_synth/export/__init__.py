"""Export: accepted tasks as a Harbor dataset with a manifest."""

from rst_synth.export.harbor import MANIFEST_FIELDS, export_dataset

__all__ = ["MANIFEST_FIELDS", "export_dataset"]
