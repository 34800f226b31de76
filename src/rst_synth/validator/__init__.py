"""The validator: the acceptance contract (static, build, oracle, nop, determinism, parent)."""

from rst_synth.validator.models import (
    PIPELINE_CHECKS,
    QUALITY_CHECKS,
    Check,
    CheckResult,
    Reason,
    ValidationReport,
    ValidatorConfig,
    Verdict,
)
from rst_synth.validator.static import static_check
from rst_synth.validator.validator import Validator

__all__ = [
    "PIPELINE_CHECKS",
    "QUALITY_CHECKS",
    "Check",
    "CheckResult",
    "Reason",
    "ValidationReport",
    "Validator",
    "ValidatorConfig",
    "Verdict",
    "static_check",
]
